// Mailroom extensions for finding and changing many contacts (README, "Finding contacts"):
// GET /contacts/count, GET /contacts/export (CSV), POST /contacts/bulk and GET /contacts/bulk/:id.
// The list's own search parameters are in contacts.list.ts. Registered before /contacts/:id.
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { contactsBulk, contactsBulkGet } from '../../contacts/bulk.js';
import { contactsCount, contactsCsv } from '../../contacts/search.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { MatchQuery, tags } from './contacts.schema.js';

const BulkBody = Type.Object(
  {
    action: Type.Unknown({
      description: 'add_to_segment | remove_from_segment | set_topic | unsubscribe | resubscribe | delete',
    }),
    contacts: Type.Optional(Type.Unknown({ description: 'contact ids (1-1,000)' })),
    match: Type.Optional(Type.Unknown({ description: 'every contact matching {search, filter, segment_id}' })),
    segment_id: Type.Optional(Type.Unknown()),
    topic_id: Type.Optional(Type.Unknown()),
    subscription: Type.Optional(Type.Unknown({ description: 'opt_in | opt_out (set_topic)' })),
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/contacts/count',
    { schema: { tags, summary: 'Count the contacts a search matches (Mailroom)', querystring: MatchQuery } },
    async (req) => contactsCount(deps.pool, authOf(req).team_id, req.query),
  );
  app.get(
    '/contacts/export',
    { schema: { tags, summary: 'The contacts a search matches as CSV (Mailroom)', querystring: MatchQuery } },
    async (req, reply) => {
      const lines = await contactsCsv(deps.pool, authOf(req).team_id, req.query);
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="contacts.csv"')
        .header('cache-control', 'no-store');
      return reply.send(Readable.from(lines));
    },
  );
  app.post(
    '/contacts/bulk',
    { schema: { tags, summary: 'Change many contacts at once (Mailroom)', body: BulkBody } },
    async (req, reply) => {
      const out = await contactsBulk(deps.pool, authOf(req).team_id, req.body as Record<string, unknown>);
      return reply.status(out.status).send(out.body);
    },
  );
  app.get(
    '/contacts/bulk/:id',
    {
      schema: {
        tags,
        summary: 'A bulk operation and its progress (Mailroom)',
        params: Type.Object({ id: Type.String() }),
      },
    },
    async (req) => contactsBulkGet(deps.pool, authOf(req).team_id, req.params.id),
  );
}

// A contact's segments: GET /contacts/:id_or_email/segments, POST and DELETE
// /contacts/:id_or_email/segments/:segment_id (the SDK's resend.contacts.segments.*).
import { Type } from 'typebox';
import { contactSegmentJoin, contactSegmentLeave, contactSegmentsGet } from '../../contacts/service.js';
import { PageQuerySchema, pageOf, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { ContactParams, tags } from './contacts.schema.js';

const Both = Type.Object({ id: Type.String(), segment_id: Type.String() });

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/contacts/:id/segments',
    {
      schema: { tags, summary: 'List the segments of a contact', params: ContactParams, querystring: PageQuerySchema },
    },
    async (req) => {
      const page = parsePage(req.query, true);
      return pageOf((await contactSegmentsGet(deps.pool, authOf(req).team_id, req.params.id)).data, page);
    },
  );
  app.post(
    '/contacts/:id/segments/:segment_id',
    { schema: { tags, summary: 'Add a contact to a segment', params: Both } },
    async (req, reply) => {
      return reply.send(await contactSegmentJoin(deps.pool, authOf(req).team_id, req.params.id, req.params.segment_id));
    },
  );
  app.delete(
    '/contacts/:id/segments/:segment_id',
    { schema: { tags, summary: 'Remove a contact from a segment', params: Both } },
    async (req) => {
      return contactSegmentLeave(deps.pool, authOf(req).team_id, req.params.id, req.params.segment_id);
    },
  );
}

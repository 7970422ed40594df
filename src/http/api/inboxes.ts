// /inboxes: create, list, get, update (name, from_name) and remove an inbox; `:inbox` is its id or
// its address. Threads, labels and drafts have their own files (inboxes.<part>.ts).
import { inboxChange, inboxCreate, inboxesList, inboxGet, inboxRemove } from '../../inboxes/inboxes.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { INBOX_BODY_LIMIT, InboxParam, OpenBody, tags } from './inboxes.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  const limits = { bodyLimit: INBOX_BODY_LIMIT };
  app.post(
    '/inboxes',
    { ...limits, schema: { tags, summary: 'Create an inbox', body: OpenBody } },
    async (req, reply) => reply.status(201).send(await inboxCreate(deps.pool, authOf(req).team_id, req.body ?? {})),
  );
  app.get('/inboxes', { schema: { tags, summary: 'List inboxes', querystring: PageQuerySchema } }, async (req) =>
    inboxesList(deps.pool, authOf(req).team_id, parsePage(req.query, false)),
  );
  app.get('/inboxes/:inbox', { schema: { tags, summary: 'Retrieve an inbox', params: InboxParam } }, async (req) =>
    inboxGet(deps.pool, authOf(req).team_id, req.params.inbox),
  );
  app.patch(
    '/inboxes/:inbox',
    { ...limits, schema: { tags, summary: 'Update an inbox (name, from_name)', params: InboxParam, body: OpenBody } },
    async (req) => inboxChange(deps.pool, authOf(req).team_id, req.params.inbox, req.body ?? {}),
  );
  app.delete('/inboxes/:inbox', { schema: { tags, summary: 'Delete an inbox', params: InboxParam } }, async (req) =>
    inboxRemove(deps.pool, authOf(req).team_id, req.params.inbox),
  );
}

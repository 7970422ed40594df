// /inboxes/:inbox/drafts: create (standalone or reply), list with snippets, get, update
// (attachments replaced), delete, send (through the one send path; inboxes/drafts.ts).
import { Type } from 'typebox';
import { draftChange, draftCreate, draftGet, draftRemove, draftSend, draftsList } from '../../inboxes/drafts.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { ATTACHMENT_BODY_LIMIT, INBOX_BODY_LIMIT, InboxParam, OpenBody, tags } from './inboxes.schema.js';

const DraftParams = Type.Object({ inbox: Type.String({ maxLength: 400 }), draftId: Type.String({ maxLength: 100 }) });

export default function register(app: ApiApp, deps: ApiDeps): void {
  const d = { pool: deps.pool, sender: deps.sender, allowPrivateNetworks: deps.config.allowPrivateNetworks };
  const key = (req: { headers: Record<string, unknown> }) => req.headers['idempotency-key'] as string | undefined;
  app.post(
    '/inboxes/:inbox/drafts',
    {
      bodyLimit: ATTACHMENT_BODY_LIMIT,
      schema: { tags, summary: 'Create a draft', params: InboxParam, body: OpenBody },
    },
    async (req, reply) => {
      const res = await draftCreate(d, authOf(req).team_id, req.params.inbox, req.body ?? {}, key(req));
      return reply.status(res.status).send(res.body);
    },
  );
  app.get(
    '/inboxes/:inbox/drafts',
    { schema: { tags, summary: "List an inbox's drafts", params: InboxParam, querystring: PageQuerySchema } },
    async (req) => draftsList(deps.pool, authOf(req).team_id, req.params.inbox, parsePage(req.query, false)),
  );
  app.get(
    '/inboxes/:inbox/drafts/:draftId',
    { schema: { tags, summary: 'Retrieve a draft', params: DraftParams } },
    async (req) => draftGet(deps.pool, authOf(req).team_id, req.params.inbox, req.params.draftId),
  );
  app.patch(
    '/inboxes/:inbox/drafts/:draftId',
    {
      bodyLimit: ATTACHMENT_BODY_LIMIT,
      schema: { tags, summary: 'Update a draft', params: DraftParams, body: OpenBody },
    },
    async (req) => draftChange(d, authOf(req).team_id, req.params.inbox, req.params.draftId, req.body ?? {}),
  );
  app.delete(
    '/inboxes/:inbox/drafts/:draftId',
    { schema: { tags, summary: 'Delete a draft', params: DraftParams } },
    async (req) => draftRemove(d, authOf(req).team_id, req.params.inbox, req.params.draftId),
  );
  app.post(
    '/inboxes/:inbox/drafts/:draftId/send',
    {
      bodyLimit: INBOX_BODY_LIMIT,
      // No body schema: the SDK sends no body when there are no headers.
      schema: { tags, summary: 'Send a draft', params: DraftParams },
    },
    async (req) => {
      const auth = authOf(req);
      const ctx = { teamId: auth.team_id, apiKeyId: auth.id, keyDomainId: auth.domain_id, source: 'api' as const };
      const body = req.body && typeof req.body === 'object' && !Array.isArray(req.body) ? req.body : {};
      return draftSend(d, ctx, req.params.inbox, req.params.draftId, body as Record<string, unknown>, key(req));
    },
  );
}

// /inboxes/:inbox/threads/:threadId/emails: a thread's messages (oldest first), one message.
import { Type } from 'typebox';
import { threadEmailGet, threadEmailsList } from '../../inboxes/threads.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { ThreadParams, tags } from './inboxes.schema.js';

export const EmailParams = Type.Object({
  inbox: Type.String({ maxLength: 400 }),
  threadId: Type.String({ maxLength: 100 }),
  emailId: Type.String({ maxLength: 100 }),
});

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/inboxes/:inbox/threads/:threadId/emails',
    { schema: { tags, summary: "List a thread's emails", params: ThreadParams, querystring: PageQuerySchema } },
    async (req) =>
      threadEmailsList(
        deps.pool,
        authOf(req).team_id,
        req.params.inbox,
        req.params.threadId,
        parsePage(req.query, false),
      ),
  );
  app.get(
    '/inboxes/:inbox/threads/:threadId/emails/:emailId',
    { schema: { tags, summary: 'Retrieve an email of a thread', params: EmailParams } },
    async (req) =>
      threadEmailGet(deps.pool, authOf(req).team_id, req.params.inbox, req.params.threadId, req.params.emailId),
  );
}

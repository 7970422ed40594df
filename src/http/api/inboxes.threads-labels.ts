// /inboxes/:inbox/threads/:threadId/labels: add (POST), set (PUT) or remove (DELETE one) a
// thread's labels; 1 to 10 label ids a call.
import { Type } from 'typebox';
import { threadLabelsChange } from '../../inboxes/threads.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { INBOX_BODY_LIMIT, OpenBody, ThreadParams, tags } from './inboxes.schema.js';

const OneLabel = Type.Object({
  inbox: Type.String({ maxLength: 400 }),
  threadId: Type.String({ maxLength: 100 }),
  labelId: Type.String({ maxLength: 100 }),
});

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = (summary: string) => ({
    bodyLimit: INBOX_BODY_LIMIT,
    schema: { tags, summary, params: ThreadParams, body: OpenBody },
  });
  app.post('/inboxes/:inbox/threads/:threadId/labels', opts('Add labels to a thread'), async (req) =>
    threadLabelsChange(deps.pool, authOf(req).team_id, req.params.inbox, req.params.threadId, 'add', req.body?.labels),
  );
  app.put('/inboxes/:inbox/threads/:threadId/labels', opts("Set a thread's labels"), async (req) =>
    threadLabelsChange(deps.pool, authOf(req).team_id, req.params.inbox, req.params.threadId, 'set', req.body?.labels),
  );
  app.delete(
    '/inboxes/:inbox/threads/:threadId/labels/:labelId',
    { schema: { tags, summary: 'Remove a label from a thread', params: OneLabel } },
    async (req) =>
      threadLabelsChange(
        deps.pool,
        authOf(req).team_id,
        req.params.inbox,
        req.params.threadId,
        'remove',
        req.params.labelId,
      ),
  );
}

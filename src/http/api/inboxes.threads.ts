// /inboxes/:inbox/threads: list (folders, labels, read filters), search (full text, ranked), get,
// update (read, folder; `assignee_email` beyond the SDK), remove. A thread's labels and emails
// have their own files.
import { threadChange, threadGet, threadRemove, threadsList, threadsSearch } from '../../inboxes/threads.js';
import { parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { INBOX_BODY_LIMIT, InboxParam, OpenBody, OpenQuery, ThreadParams, tags } from './inboxes.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/inboxes/:inbox/threads',
    { schema: { tags, summary: "List an inbox's threads", params: InboxParam, querystring: OpenQuery } },
    async (req) =>
      threadsList(deps.pool, authOf(req).team_id, req.params.inbox, req.query, parsePage(req.query, false)),
  );
  app.get(
    '/inboxes/:inbox/threads/search',
    { schema: { tags, summary: "Search an inbox's threads", params: InboxParam, querystring: OpenQuery } },
    async (req) =>
      threadsSearch(deps.pool, authOf(req).team_id, req.params.inbox, req.query, parsePage(req.query, false)),
  );
  app.get(
    '/inboxes/:inbox/threads/:threadId',
    { schema: { tags, summary: 'Retrieve a thread', params: ThreadParams } },
    async (req) => threadGet(deps.pool, authOf(req).team_id, req.params.inbox, req.params.threadId),
  );
  app.patch(
    '/inboxes/:inbox/threads/:threadId',
    {
      bodyLimit: INBOX_BODY_LIMIT,
      schema: { tags, summary: 'Update a thread (read, folder)', params: ThreadParams, body: OpenBody },
    },
    async (req) => threadChange(deps.pool, authOf(req).team_id, req.params.inbox, req.params.threadId, req.body ?? {}),
  );
  app.delete(
    '/inboxes/:inbox/threads/:threadId',
    { schema: { tags, summary: 'Delete a thread', params: ThreadParams } },
    async (req) => threadRemove(deps.pool, authOf(req).team_id, req.params.inbox, req.params.threadId),
  );
}

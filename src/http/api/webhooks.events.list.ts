// GET /webhooks/:id/events?limit&after → the endpoint's messages, newest first:
// {object: "list", has_more, data: [{id: "msg_...", type, created_at, status}]}.
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AfterPageQuery, IdParams, parseAfterPage } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get('/webhooks/:id/events', { schema: { tags: ['Webhooks'], summary: 'List the events sent to a webhook endpoint', params: IdParams, querystring: AfterPageQuery } }, async (req) => {
    return deps.webhookLog.messages(authOf(req).team_id, req.params.id, parseAfterPage(req.query, 'msg_'));
  });
}

// GET /webhooks/:id/events/:message_id/attempts?limit&after → every request made for the event,
// newest first: {id, http_status_code (0 = no answer), response (first 4 KB), sent_at, duration_ms,
// endpoint, error: {type, message} | null, request_headers, request_body}.
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AfterPageQuery, MessageParams, parseAfterPage } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/webhooks/:id/events/:message_id/attempts',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'List the delivery attempts of a webhook event',
        params: MessageParams,
        querystring: AfterPageQuery,
      },
    },
    async (req) => {
      const p = req.params;
      return deps.webhookLog.attempts(authOf(req).team_id, p.id, p.message_id, parseAfterPage(req.query, 'atmpt_'));
    },
  );
}

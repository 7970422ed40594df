// GET /webhooks/:id/events/:message_id → {object: "webhook_event", id, type, created_at, status,
// next_attempt_at, attempts, payload} (payload: the body the endpoint receives).
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { MessageParams } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/webhooks/:id/events/:message_id',
    { schema: { tags: ['Webhooks'], summary: 'Retrieve an event sent to a webhook endpoint', params: MessageParams } },
    async (req) => {
      const p = req.params;
      return deps.webhookLog.message(authOf(req).team_id, p.id, p.message_id);
    },
  );
}

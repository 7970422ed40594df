// POST /webhooks/:id/events/:message_id/replay → {object: "webhook_event", id}: the event is sent
// again (same msg_ id, so receivers can dedupe), whether it failed or succeeded before.
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { MessageParams } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/webhooks/:id/events/:message_id/replay',
    { schema: { tags: ['Webhooks'], summary: 'Replay an event to a webhook endpoint', params: MessageParams } },
    async (req) => {
      const p = req.params;
      return deps.webhookLog.replay(authOf(req).team_id, p.id, p.message_id);
    },
  );
}

// POST /webhooks/:id/events/:message_id/replay → {object: "webhook_event", id}: the event is sent
// again (same msg_ id, so receivers can dedupe), whether it failed or succeeded before.
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { MessageParams } from './webhooks.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/webhooks/:id/events/:message_id/replay', { schema: { tags: ['Webhooks'], summary: 'Replay an event to a webhook endpoint', params: MessageParams } }, async (req) => {
    const p = req.params as { id: string; message_id: string };
    return deps.webhookLog.replay(authOf(req).team_id, p.id, p.message_id);
  });
}

// DELETE /webhooks/:id → {object: "webhook", id, deleted: true}; its log goes with it.
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './webhooks.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.delete('/webhooks/:id', { schema: { tags: ['Webhooks'], summary: 'Delete a webhook endpoint', params: IdParams } }, async (req) => {
    return deps.webhooks.remove(authOf(req).team_id, (req.params as { id: string }).id);
  });
}

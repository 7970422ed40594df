// PATCH /webhooks/:id {endpoint?, events?, status?: enabled|disabled} → {object: "webhook", id}.
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams, WebhookBody } from './webhooks.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.patch('/webhooks/:id', { schema: { tags: ['Webhooks'], summary: 'Update a webhook endpoint', params: IdParams, body: WebhookBody } }, async (req) => {
    return deps.webhooks.update(authOf(req).team_id, (req.params as { id: string }).id, (req.body ?? {}) as object);
  });
}

// GET /webhooks/:id → {object: "webhook", id, created_at, status, endpoint, events, signing_secret}.
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './webhooks.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/webhooks/:id', { schema: { tags: ['Webhooks'], summary: 'Retrieve a webhook endpoint', params: IdParams } }, async (req) => {
    return deps.webhooks.get(authOf(req).team_id, (req.params as { id: string }).id);
  });
}

// GET /webhooks/:id → {object: "webhook", id, created_at, status, endpoint, events, signing_secret}.
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/webhooks/:id',
    { schema: { tags: ['Webhooks'], summary: 'Retrieve a webhook endpoint', params: IdParams } },
    async (req) => {
      return deps.webhooks.get(authOf(req).team_id, req.params.id);
    },
  );
}

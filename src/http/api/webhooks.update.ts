// PATCH /webhooks/:id {endpoint?, events?, status?: enabled|disabled} → {object: "webhook", id}.
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams, WebhookBody } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.patch(
    '/webhooks/:id',
    { schema: { tags: ['Webhooks'], summary: 'Update a webhook endpoint', params: IdParams, body: WebhookBody } },
    async (req) => {
      return deps.webhooks.update(authOf(req).team_id, req.params.id, req.body ?? {}, actorOf(req));
    },
  );
}

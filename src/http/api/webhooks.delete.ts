// DELETE /webhooks/:id → {object: "webhook", id, deleted: true}; its log goes with it.
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.delete(
    '/webhooks/:id',
    { schema: { tags: ['Webhooks'], summary: 'Delete a webhook endpoint', params: IdParams } },
    async (req) => {
      return deps.webhooks.remove(authOf(req).team_id, req.params.id, actorOf(req));
    },
  );
}

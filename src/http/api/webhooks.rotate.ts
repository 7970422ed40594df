// POST /webhooks/:id/signing-secret/rotate → {object: "webhook", id, signing_secret}: the new
// secret signs from now on, the old one as well for 24 h (two `v1,` entries in the signature).
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/webhooks/:id/signing-secret/rotate',
    { schema: { tags: ['Webhooks'], summary: 'Rotate the signing secret of a webhook endpoint', params: IdParams } },
    async (req) => {
      return deps.webhooks.rotateSecret(authOf(req).team_id, req.params.id, actorOf(req));
    },
  );
}

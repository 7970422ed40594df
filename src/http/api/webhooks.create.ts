// POST /webhooks {endpoint, events} → 201 {object: "webhook", id, signing_secret}.
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { WebhookBody } from './webhooks.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/webhooks',
    { schema: { tags: ['Webhooks'], summary: 'Create a webhook endpoint', body: WebhookBody } },
    async (req, reply) => {
      return reply.status(201).send(await deps.webhooks.create(authOf(req).team_id, req.body ?? {}, actorOf(req)));
    },
  );
}

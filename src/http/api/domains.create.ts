// POST /domains → 201 with the DNS records to publish (no `object` key, as Resend).
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { CreateDomainBody } from './domains.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/domains',
    { schema: { tags: ['Domains'], summary: 'Add a sending domain', body: CreateDomainBody } },
    async (req, reply) => {
      return reply.status(201).send(await deps.domains.create(authOf(req).team_id, req.body, actorOf(req)));
    },
  );
}

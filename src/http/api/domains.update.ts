// PATCH /domains/:id → {object: "domain", id}: tracking, TLS policy, capabilities.
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams, UpdateDomainBody } from './domains.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.patch(
    '/domains/:id',
    { schema: { tags: ['Domains'], summary: 'Update a domain', params: IdParams, body: UpdateDomainBody } },
    async (req) => {
      return deps.domains.update(authOf(req).team_id, req.params.id, req.body ?? {}, actorOf(req));
    },
  );
}

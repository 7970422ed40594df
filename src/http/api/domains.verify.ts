// POST /domains/:id/verify → checks every record by DNS now, then {object: "domain", id}.
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './domains.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/domains/:id/verify',
    { schema: { tags: ['Domains'], summary: 'Verify a domain', params: IdParams } },
    async (req) => {
      return deps.domains.verify(authOf(req).team_id, req.params.id, actorOf(req));
    },
  );
}

// DELETE /domains/:id → {object: "domain", id, deleted: true}.
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './domains.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.delete(
    '/domains/:id',
    { schema: { tags: ['Domains'], summary: 'Delete a domain', params: IdParams } },
    async (req) => {
      return deps.domains.remove(authOf(req).team_id, req.params.id, actorOf(req));
    },
  );
}

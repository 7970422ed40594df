// GET /domains/:id → the domain with each record and its verification status.
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { IdParams } from './domains.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/domains/:id',
    { schema: { tags: ['Domains'], summary: 'Retrieve a domain', params: IdParams } },
    async (req) => {
      return deps.domains.get(authOf(req).team_id, req.params.id);
    },
  );
}

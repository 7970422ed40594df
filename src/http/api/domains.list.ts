// GET /domains → legacy list (everything when no limit is given).
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/domains',
    { schema: { tags: ['Domains'], summary: 'List domains', querystring: PageQuerySchema } },
    async (req) => {
      return deps.domains.list(authOf(req).team_id, parsePage(req.query, true));
    },
  );
}

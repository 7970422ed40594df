// GET /api-keys → legacy list (everything when no limit): {id, name, created_at, last_used_at}.
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/api-keys',
    { schema: { tags: ['API keys'], summary: 'List API keys', querystring: PageQuerySchema } },
    async (req) => {
      return listBody(await deps.apiKeys.list(authOf(req).team_id, parsePage(req.query, true)));
    },
  );
}

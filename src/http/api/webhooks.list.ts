// GET /webhooks → {object: "list", has_more, data: [{id, endpoint, created_at, status, events}]}.
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/webhooks',
    { schema: { tags: ['Webhooks'], summary: 'List webhook endpoints', querystring: PageQuerySchema } },
    async (req) => {
      return deps.webhooks.list(authOf(req).team_id, parsePage(req.query, false));
    },
  );
}

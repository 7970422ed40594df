// GET /api-keys → legacy list (everything when no limit): {id, name, created_at, last_used_at}.
import type { FastifyInstance } from 'fastify';
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps } from '../types.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/api-keys', { schema: { tags: ['API keys'], summary: 'List API keys', querystring: PageQuerySchema } }, async (req) => {
    return listBody(await deps.apiKeys.list(authOf(req).team_id, parsePage(req.query as object, true)));
  });
}

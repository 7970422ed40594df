// GET /emails → newest first, always paginated (default 20).
import type { FastifyInstance } from 'fastify';
import { emailsList } from '../../emails/records.js';
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { parseEmailFilters } from '../email-filters.js';
import { authOf, type ApiDeps } from '../types.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/emails', { schema: { tags: ['Emails'], summary: 'List emails', querystring: PageQuerySchema } }, async (req) => {
    // Optional filters (dashboard): status, start_date, end_date, domain_id, api_key_id, tag, q.
    return listBody(await emailsList(deps.pool, authOf(req).team_id, parsePage(req.query as object, false), parseEmailFilters(req.query as Record<string, unknown>)));
  });
}

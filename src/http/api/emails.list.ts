// GET /emails → newest first, always paginated (default 20). GET /emails/count (Mailroom extension):
// how many match the same filters, up to 10,000 (`capped` past it), for the dashboard's result count.
import { emailsCount, emailsList } from '../../emails/views/records.js';
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { parseEmailFilters } from '../email-filters.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails',
    { schema: { tags: ['Emails'], summary: 'List emails', querystring: PageQuerySchema } },
    async (req) => {
      // Optional filters (dashboard): status, start_date, end_date, domain_id, api_key_id, tag, q.
      return listBody(
        await emailsList(deps.pool, authOf(req).team_id, parsePage(req.query, false), parseEmailFilters(req.query)),
      );
    },
  );
  app.get(
    '/emails/count',
    {
      schema: {
        tags: ['Emails'],
        summary: 'Count emails matching the list filters (Mailroom extension; up to 10,000)',
      },
    },
    async (req) => {
      return emailsCount(deps.pool, authOf(req).team_id, parseEmailFilters(req.query as Record<string, unknown>));
    },
  );
}

// GET /emails/receiving → received emails, newest first (a "legacy" list: everything without `limit`).
import { listItemView } from '../../inbound/views.js';
import { receivedList } from '../../inbound/queries.js';
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails/receiving',
    { schema: { tags: ['Receiving'], summary: 'List received emails', querystring: PageQuerySchema } },
    async (req) => {
      const page = await receivedList(deps.pool, authOf(req).team_id, parsePage(req.query, true));
      return listBody({ has_more: page.has_more, data: page.data.map(listItemView) });
    },
  );
}

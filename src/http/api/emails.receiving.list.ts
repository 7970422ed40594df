// GET /emails/receiving → received emails, newest first (a "legacy" list: everything without `limit`).
import type { FastifyInstance } from 'fastify';
import { listItemView } from '../../inbound/views.js';
import { receivedList } from '../../inbound/queries.js';
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps } from '../types.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/emails/receiving', { schema: { tags: ['Receiving'], summary: 'List received emails', querystring: PageQuerySchema } }, async (req) => {
    const page = await receivedList(deps.pool, authOf(req).team_id, parsePage(req.query as object, true));
    return listBody({ has_more: page.has_more, data: page.data.map(listItemView) });
  });
}

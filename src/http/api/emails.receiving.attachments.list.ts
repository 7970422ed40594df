// GET /emails/receiving/:id/attachments → the attachments of a received email, in message order,
// each with a signed download link (paginated by attachment id).
import { attachmentView } from '../../inbound/views.js';
import { receivedAttachmentsOf } from '../../inbound/queries.js';
import { PageQuerySchema, pageOf, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails/receiving/:id/attachments',
    {
      schema: {
        tags: ['Receiving'],
        summary: 'List the attachments of a received email',
        params: IdParams,
        querystring: PageQuerySchema,
      },
    },
    async (req) => {
      const { id } = req.params;
      const page = parsePage(req.query, true);
      const all = await receivedAttachmentsOf(deps.pool, authOf(req).team_id, id);
      // Attachments are in message order (a handful per email): the cursor is an attachment id.
      const p = pageOf(all, page);
      return { ...p, data: p.data.map((a) => attachmentView(a, deps.downloads)) };
    },
  );
}

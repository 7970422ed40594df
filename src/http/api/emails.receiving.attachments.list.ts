// GET /emails/receiving/:id/attachments → the attachments of a received email, in message order,
// each with a signed download link (paginated by attachment id).
import { AppError } from '../../errors.js';
import { attachmentView } from '../../inbound/views.js';
import { receivedAttachmentsOf } from '../../inbound/queries.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
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
      let items = all;
      const cursor = page.after ?? page.before;
      if (cursor) {
        const i = all.findIndex((a) => a.id === cursor);
        if (i < 0)
          throw new AppError(
            'validation_error',
            `The \`${page.after ? 'after' : 'before'}\` cursor does not match any item.`,
          );
        items = page.after ? all.slice(i + 1) : all.slice(0, i);
      }
      const limit = page.limit ?? items.length;
      const data = page.before ? items.slice(Math.max(0, items.length - limit)) : items.slice(0, limit);
      return {
        object: 'list',
        has_more: data.length < items.length,
        data: data.map((a) => attachmentView(a, deps.downloads)),
      };
    },
  );
}

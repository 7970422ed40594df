// GET /emails/receiving/:id/attachments/:attachment_id → one attachment with its signed download link.
import { Type } from 'typebox';
import { attachmentView } from '../../inbound/views.js';
import { receivedAttachmentOf } from '../../inbound/queries.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

const Params = Type.Object({ id: Type.String(), attachment_id: Type.String() });

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails/receiving/:id/attachments/:attachment_id',
    { schema: { tags: ['Receiving'], summary: 'Retrieve an attachment of a received email', params: Params } },
    async (req) => {
      const { id, attachment_id: attId } = req.params;
      const a = await receivedAttachmentOf(deps.pool, authOf(req).team_id, id, attId);
      return attachmentView(a, deps.downloads);
    },
  );
}

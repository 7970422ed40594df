// GET /emails/receiving/:id/attachments/:attachment_id → one attachment with its signed download link.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { attachmentView } from '../../inbound/views.js';
import { receivedAttachmentOf } from '../../inbound/queries.js';
import { authOf, type ApiDeps } from '../types.js';

const Params = Type.Object({ id: Type.String(), attachment_id: Type.String() });

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/emails/receiving/:id/attachments/:attachment_id', { schema: { tags: ['Receiving'], summary: 'Retrieve an attachment of a received email', params: Params } }, async (req) => {
    const { id, attachment_id: attId } = req.params as { id: string; attachment_id: string };
    const a = await receivedAttachmentOf(deps.pool, authOf(req).team_id, id, attId);
    return attachmentView(a, deps.downloads);
  });
}

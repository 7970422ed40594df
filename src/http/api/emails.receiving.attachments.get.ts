// GET /emails/receiving/:id/attachments/:attachment_id → one attachment with its signed download link.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { attachmentView } from '../../inbound/views.js';
import { receivedAttachmentFind } from '../../store/received-emails.js';
import { authOf, type ApiDeps } from '../types.js';

const Params = Type.Object({ id: Type.String(), attachment_id: Type.String() });

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/emails/receiving/:id/attachments/:attachment_id', { schema: { tags: ['Receiving'], summary: 'Retrieve an attachment of a received email', params: Params } }, async (req) => {
    const { id, attachment_id: attId } = req.params as { id: string; attachment_id: string };
    const a = isUuid(id) && isUuid(attId) ? await receivedAttachmentFind(deps.pool, attId) : undefined;
    if (!a || a.email_id !== id || a.team_id !== authOf(req).team_id) throw notFound('Attachment');
    return attachmentView(a, deps.downloads);
  });
}

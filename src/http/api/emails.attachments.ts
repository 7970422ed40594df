// GET /emails/:id/attachments and /emails/:id/attachments/:attachment_id: the attachments of a
// sent email (the SDK's resend.emails.attachments.list/get), each with a signed, expiring
// download_url; GET /files/sent/<email id>.<attachment id> serves it (the link is the credential).
import { Type } from 'typebox';
import { AppError, notFound } from '../../errors.js';
import {
  attachmentForDownload,
  attachmentsOfTeamEmail,
  type SentAttachment,
} from '../../emails/views/sent-attachments.js';
import { isUuid } from '../../lib/ids.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { PageQuerySchema, pageOf, parsePage, SignedLinkQuery } from '../pagination.js';

const tags = ['Emails'];

export default function register(app: ApiApp, deps: ApiDeps): void {
  const view = (emailId: string, a: SentAttachment) => {
    const { content: _content, ...rest } = a;
    return { ...rest, ...deps.downloads.link('sent-attachment', `${emailId}.${a.id}`) };
  };
  const load = async (teamId: string, id: string) => {
    const list = isUuid(id) ? await attachmentsOfTeamEmail(deps.pool, teamId, id) : undefined;
    if (!list) throw notFound('Email');
    return list;
  };

  app.get(
    '/emails/:id/attachments',
    {
      schema: {
        tags,
        summary: 'List the attachments of a sent email',
        params: Type.Object({ id: Type.String() }),
        querystring: PageQuerySchema,
      },
    },
    async (req) => {
      const { id } = req.params;
      const page = parsePage(req.query, true);
      // In MIME order, paged by attachment id (a handful per email, read from the stored message).
      const p = pageOf(await load(authOf(req).team_id, id), page);
      return { ...p, data: p.data.map((a) => view(id, a)) };
    },
  );

  app.get(
    '/emails/:id/attachments/:attachment_id',
    {
      schema: {
        tags,
        summary: 'Retrieve an attachment of a sent email',
        params: Type.Object({ id: Type.String(), attachment_id: Type.String() }),
      },
    },
    async (req) => {
      const { id, attachment_id } = req.params;
      const a = (await load(authOf(req).team_id, id)).find((x) => x.id === attachment_id);
      if (!a) throw notFound('Attachment');
      return { object: 'attachment', ...view(id, a) };
    },
  );

  app.get(
    '/files/sent/:ref',
    {
      config: { public: true },
      schema: { hide: true, params: Type.Object({ ref: Type.String() }), querystring: SignedLinkQuery },
    },
    async (req, reply) => {
      const { ref } = req.params;
      const { expires, signature } = req.query;
      const [emailId, attachmentId] = ref.split('.');
      if (
        !isUuid(emailId ?? '') ||
        !isUuid(attachmentId ?? '') ||
        !deps.downloads.valid('sent-attachment', ref, expires, signature)
      )
        throw new AppError('not_found');
      const a = await attachmentForDownload(deps.pool, emailId, attachmentId);
      if (!a) throw new AppError('not_found', 'The attachment was removed by retention.');
      return reply
        .type(a.content_type)
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header(
          'content-disposition',
          `attachment; filename="${(a.filename ?? 'attachment').replace(/[^\w.\- ]+/g, '_').slice(0, 200)}"`,
        )
        .send(a.content);
    },
  );
}

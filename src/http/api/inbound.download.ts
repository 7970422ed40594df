// GET /inbound/raw/:id and /inbound/attachment/:id?expires&signature (public: the signed link is
// the credential; no key, no rate limit, not request-logged): streams a received message or one
// attachment from its chunks. An expired, altered or unsigned link is a 404.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { SignedLinkQuery } from '../pagination.js';
import { isUuid } from '../../lib/ids.js';
import { blobStream, receivedAttachmentForDownload, receivedRawForDownload } from '../../inbound/queries.js';
import type { ApiApp, ApiDeps } from '../types.js';

const safeName = (n: string) => n.replace(/[^\w.\- ]+/g, '_').slice(0, 200) || 'attachment';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/inbound/:kind/:id',
    {
      config: { public: true },
      schema: {
        hide: true,
        params: Type.Object({ kind: Type.String(), id: Type.String() }),
        querystring: SignedLinkQuery,
      },
    },
    async (req, reply) => {
      const { kind, id } = req.params;
      const { expires, signature } = req.query;
      if (
        (kind !== 'raw' && kind !== 'attachment') ||
        !isUuid(id) ||
        !deps.downloads.valid(kind, id, expires, signature)
      )
        throw new AppError('not_found');
      // Sender-controlled bytes on the dashboard's origin: never rendered or sniffed as a page
      // (an HTML or SVG attachment would otherwise run script with the dashboard's cookies).
      reply
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cross-origin-resource-policy', 'same-origin');
      if (kind === 'raw') {
        const r = await receivedRawForDownload(deps.pool, id);
        if (!r?.raw_blob) throw new AppError('not_found', 'The raw message was removed by retention.');
        return reply
          .type('message/rfc822')
          .header('content-length', r.raw_size)
          .header('content-disposition', `attachment; filename="${id}.eml"`)
          .send(blobStream(deps.pool, r.raw_blob));
      }
      const a = await receivedAttachmentForDownload(deps.pool, id);
      if (!a?.blob_id) throw new AppError('not_found', 'The attachment was removed by retention.');
      return reply
        .type(a.content_type)
        .header('content-length', a.size)
        .header('content-disposition', `attachment; filename="${safeName(a.filename ?? '')}"`)
        .send(blobStream(deps.pool, a.blob_id));
    },
  );
}

// POST /privacy/exports {email, include_attachments?}, GET /privacy/exports[/:id] (Mailroom extension,
// issue 29): one JSON document of everything the team holds about an address, written by a job
// (privacy/export.job.ts); with include_attachments: true a zip of that document and the
// attachments of the address's sent and received emails (privacy/export-zip.ts, size-capped).
// When it is done, GET answers a signed link that expires (inbound/download-links.ts), and
// GET /privacy/exports/:id/download?expires&signature serves the document (public: the link is
// the credential, limited per client address; an expired, altered or unsigned link is a 404).
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { rateLimitHeaders } from '../../ratelimit/limiter.js';
import { type PrivacyRequestRow, privacyRequestView, subjectAddress } from '../../privacy/service.js';
import { SignedLinkQuery } from '../pagination.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { assertPrivacyReader } from './privacy.schema.js';

const tags = ['Privacy'];

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/privacy/exports',
    {
      config: { unloggedBody: true },
      schema: {
        tags,
        summary: 'Export what the team holds about an address (data-subject request)',
        body: Type.Object(
          {
            email: Type.Optional(Type.String({ maxLength: 1000 })),
            include_attachments: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: true },
        ),
      },
    },
    async (req, reply) => {
      const email = subjectAddress(req.body?.email);
      const row = await deps.privacy.requests.start(authOf(req).team_id, 'export', email, actorOf(req), {
        includeAttachments: req.body?.include_attachments === true,
      });
      const view = privacyRequestView(row);
      return reply.status(202).send({ object: view.object, id: view.id, status: view.status });
    },
  );

  const withLink = (row: PrivacyRequestRow) => {
    const view = privacyRequestView(row);
    if (row.status !== 'completed' || !row.result_blob) return { ...view, download_url: null, expires_at: null };
    return { ...view, ...deps.downloads.link('privacy-export', row.id) };
  };

  app.get('/privacy/exports', { schema: { tags, summary: "The team's newest exports (at most 100)" } }, async (req) => {
    const auth = authOf(req);
    assertPrivacyReader(auth);
    const rows = await deps.privacy.requests.list(auth.team_id, 'export');
    return { object: 'list' as const, has_more: false, data: rows.map(withLink) };
  });

  app.get(
    '/privacy/exports/:id',
    { schema: { tags, summary: 'An export and its download link', params: Type.Object({ id: Type.String() }) } },
    async (req) => {
      const auth = authOf(req);
      assertPrivacyReader(auth);
      return withLink(await deps.privacy.requests.get(auth.team_id, 'export', req.params.id));
    },
  );

  app.get(
    '/privacy/exports/:id/download',
    {
      config: { public: true },
      schema: { hide: true, params: Type.Object({ id: Type.String() }), querystring: SignedLinkQuery },
    },
    async (req, reply) => {
      // No key: limited per client address, as the share page is.
      const decision = await deps.limiter.consume(`privacy-export:${req.ip}`);
      reply.headers(rateLimitHeaders(decision));
      if (!decision.allowed) throw new AppError('rate_limit_exceeded');
      const { id } = req.params;
      const { expires, signature } = req.query;
      if (!isUuid(id) || !deps.downloads.valid('privacy-export', id, expires, signature))
        throw new AppError('not_found');
      const doc = await deps.privacy.requests.exportDocument(id);
      if (!doc) throw new AppError('not_found', 'The export is no longer available.');
      const ext = doc.zip ? 'zip' : 'json';
      return reply
        .type(doc.zip ? 'application/zip' : 'application/json')
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-length', doc.bytes)
        .header('content-disposition', `attachment; filename="privacy-export-${id}.${ext}"`)
        .send(doc.stream);
    },
  );
}

// POST /privacy/exports {email}, GET /privacy/exports/:id (Mailroom extension, issue 29): one JSON
// document of everything the team holds about an address, written by a job (privacy/export.job.ts).
// When it is done, GET answers a signed link that expires (inbound/download-links.ts), and
// GET /privacy/exports/:id/download?expires&signature serves the document (public: the link is
// the credential, limited per client address; an expired, altered or unsigned link is a 404).
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { rateLimitHeaders } from '../../ratelimit/limiter.js';
import { privacyRequestView, subjectAddress } from '../../privacy/service.js';
import { SignedLinkQuery } from '../pagination.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const tags = ['Privacy'];

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/privacy/exports',
    {
      config: { unloggedBody: true },
      schema: {
        tags,
        summary: 'Export what the team holds about an address (data-subject request)',
        body: Type.Object({ email: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: true }),
      },
    },
    async (req, reply) => {
      const email = subjectAddress(req.body?.email);
      const row = await deps.privacy.requests.start(authOf(req).team_id, 'export', email, actorOf(req));
      const view = privacyRequestView(row);
      return reply.status(202).send({ object: view.object, id: view.id, status: view.status });
    },
  );

  app.get(
    '/privacy/exports/:id',
    { schema: { tags, summary: 'An export and its download link', params: Type.Object({ id: Type.String() }) } },
    async (req) => {
      const row = await deps.privacy.requests.get(authOf(req).team_id, 'export', req.params.id);
      const view = privacyRequestView(row);
      if (row.status !== 'completed' || !row.result_blob) return { ...view, download_url: null, expires_at: null };
      return { ...view, ...deps.downloads.link('privacy-export', row.id) };
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
      return reply
        .type('application/json')
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-length', doc.bytes)
        .header('content-disposition', `attachment; filename="privacy-export-${id}.json"`)
        .send(doc.stream);
    },
  );
}

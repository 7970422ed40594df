// GET /t/c/<token> (public: no key, no rate limit, not in the request log): the click redirect.
// Only a token signed by this instance redirects (302 to the link it carries, recorded as
// email.clicked); an unsigned or altered one is 404, so this is no open redirect. A wildcard
// route because tokens carry the link and may be longer than a route parameter may be.
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../errors.js';
import type { ApiDeps } from '../types.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/t/c/*', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const hit = deps.tracking.signer.verifyClick((req.params as { '*': string })['*']);
    if (!hit) throw new AppError('not_found');
    if (req.method === 'GET') deps.tracking.recorder.record({ kind: 'click', emailId: hit.emailId, url: hit.url, ip: req.ip, userAgent: req.headers['user-agent'], at: new Date() });
    return reply.header('cache-control', 'no-store').redirect(hit.url, 302);
  });
}

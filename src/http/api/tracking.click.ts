// GET /t/c/<token> (public: no key, no rate limit, not in the request log): the click redirect.
// Only a token signed by this instance redirects (302 to the link it carries, recorded as
// email.clicked); an unsigned or altered one is 404, so this is no open redirect. A wildcard
// route because tokens carry the link and may be longer than a route parameter may be.
import { AppError } from '../../errors.js';
import type { ApiApp, ApiDeps } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get('/t/c/*', { config: { public: true }, schema: { hide: true } }, async (req, reply) => {
    const hit = deps.tracking.signer.verifyClick(
      (req.params as { '*': string })['*'],
    ) /* a wildcard: TypeBox cannot compile a '*' key */;
    if (!hit) throw new AppError('not_found');
    if (req.method === 'GET')
      deps.tracking.recorder.record({
        kind: 'click',
        emailId: hit.emailId,
        url: hit.url,
        ip: req.ip,
        userAgent: req.headers['user-agent'],
        at: new Date(),
      });
    return reply.header('cache-control', 'no-store').redirect(locationOf(hit.url), 302);
  });
}

/**
 * The link as a Location header can carry it: ASCII only (an IDN host in punycode, a non-ASCII
 * path or query percent-encoded, as a browser would request it). `https://例え.jp/パス` used to
 * make Node refuse the header (ERR_INVALID_CHAR) and answer 500.
 */
export function locationOf(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return encodeURI(url.replace(/[\u0000-\u001f\u007f]/g, ''));
  }
}

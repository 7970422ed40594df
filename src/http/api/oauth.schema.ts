// Shared by the OAuth endpoints: the form-encoded bodies RFC 6749 prescribes (registered only in
// the scope of the token and revocation routes, so no other route starts taking forms), the
// no-store headers of every token answer (RFC 6749 5.1), and RFC 6749 5.2's error answers.
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import { OAuthError } from '../../oauth/index.js';
import type { ApiApp } from '../types.js';

export const IdParams = Type.Object({ id: Type.String() });

/** Public: no API key, no rate limit, and not in the request log (bodies and answers carry secrets). */
export const PUBLIC = { public: true } as const;

export function acceptForms(app: ApiApp): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    const out: Record<string, string | string[]> = {};
    for (const [k, v] of new URLSearchParams(body as string)) {
      const seen = out[k];
      // Repeated parameters are refused later (RFC 6749 3.2: "MUST NOT be included more than once").
      out[k] = seen === undefined ? v : [...(Array.isArray(seen) ? seen : [seen]), v];
    }
    done(null, out);
  });
}

export function noStore(reply: FastifyReply): void {
  reply.headers({ 'cache-control': 'no-store', pragma: 'no-cache' });
}

/** The OAuth error's answer (401 with a Basic challenge for a failed client authentication). */
export function oauthErrorAnswer(reply: FastifyReply, err: unknown, basicUsed: boolean) {
  if (!(err instanceof OAuthError)) throw err;
  reply.status(err.status);
  if (err.status === 401) reply.header('www-authenticate', basicUsed ? 'Basic realm="mailroom"' : 'Basic');
  return err.toBody();
}

export const bodyParams = (body: unknown): Record<string, unknown> =>
  body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};

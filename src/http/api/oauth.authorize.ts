// GET /oauth/authorize (RFC 6749 4.1.1, PKCE RFC 7636): where a third-party integration sends the
// user's browser. An unknown client or a redirect_uri not registered for it is told to the user
// here (400 page), never redirected to (RFC 6749 4.1.2.1: an open redirector otherwise); any other
// fault goes back to the client's redirect_uri with error and state. A valid request moves on to
// the dashboard's consent page, which asks the signed-in user to approve it for one of their teams.
import type { FastifyReply } from 'fastify';
import type { ApiApp, ApiDeps } from '../types.js';
import { PUBLIC } from './oauth.schema.js';

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

function refusal(reply: FastifyReply, error: string, description: string) {
  return reply
    .status(400)
    .headers({
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'",
      'x-frame-options': 'DENY',
    })
    .type('text/html; charset=utf-8')
    .send(
      `<!doctype html><meta charset="utf-8"><title>Authorization failed</title>
<h1>This application's authorization request is not valid</h1>
<p>${escapeHtml(description)} (<code>${escapeHtml(error)}</code>)</p>
<p>You were not sent back to the application. Tell its developer.</p>`,
    );
}

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/oauth/authorize',
    { config: PUBLIC, schema: { tags: ['OAuth'], summary: 'Start an OAuth authorization (code + PKCE)' } },
    async (req, reply) => {
      const check = await deps.oauth.check(req.query as Record<string, unknown>);
      if (!check.ok) {
        if (check.redirect === null) return refusal(reply, check.error, check.description);
        return reply.header('cache-control', 'no-store').redirect(check.redirect, 302);
      }
      const r = check.request;
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: r.client.id,
        redirect_uri: r.redirectUri,
        scope: r.scope,
        code_challenge: r.codeChallenge,
        code_challenge_method: 'S256',
      });
      if (r.state !== null) q.set('state', r.state);
      return reply.header('cache-control', 'no-store').redirect(`/dashboard/oauth/authorize?${q}`, 302); // relative: the dashboard is on this same origin
    },
  );
}

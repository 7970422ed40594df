// OAuth sign-in: /start redirects to the provider; /callback checks state and PKCE (oauth.ts),
// finds the user by the linked provider account or a VERIFIED email (or creates one from an
// invite), then signs in (pending when TOTP is on) and redirects into the SPA.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors.js';
import { oauthUser } from '../../dashboard-auth/oauth-users.js';
import type { ApiDeps } from '../types.js';
import { dash, noStore, PUBLIC, setCookies, TAGS } from './common.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  const opts = (summary: string) => ({ config: PUBLIC, onRequest: noStore, schema: { tags: TAGS, summary, hide: true } });
  const back = (reply: FastifyReply, path: string) => reply.redirect(`${deps.config.publicUrl}${path}`, 302);

  app.get('/dashboard-api/oauth/:provider/start', opts('Start OAuth sign-in'), async (req, reply) => {
    const { provider } = req.params as { provider: string };
    const invite = (req.query as { invite?: string }).invite;
    const s = dash(deps).oauth.start(provider, invite && /^[A-Za-z0-9]{32}$/.test(invite) ? invite : null);
    reply.header('set-cookie', s.cookie);
    return reply.redirect(s.location, 302);
  });

  app.get('/dashboard-api/oauth/:provider/callback', opts('OAuth redirect target'), async (req, reply) => {
    const d = dash(deps);
    const { provider } = req.params as { provider: string };
    const cookies = [d.oauth.cookie('', 0)];
    try {
      const { identity, invite } = await d.oauth.finish(provider, req.query as Record<string, string>, req.headers.cookie);
      const user = await oauthUser(deps.pool, d.accounts, deps.log, provider, identity, invite);
      const s = await d.accounts.start(req, user);
      setCookies(reply, [...cookies, ...s.cookies]);
      return back(reply, s.mfa_required ? '/dashboard/login?mfa=1' : '/dashboard/emails');
    } catch (err) {
      if (!(err instanceof AppError)) deps.log.error('oauth sign-in failed', { err, provider });
      setCookies(reply, cookies);
      const msg = err instanceof AppError ? err.message : 'Sign-in failed. Try again.';
      return back(reply, `/dashboard/login?error=${encodeURIComponent(msg)}`);
    }
  });
}

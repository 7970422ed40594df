// OAuth sign-in: /start redirects to the provider; /callback checks state and PKCE (oauth.ts),
// finds the user by the linked provider account or a VERIFIED email (or creates one from an
// invite), then signs in (pending when TOTP is on) and redirects into the SPA.
import { Type } from 'typebox';
import type { FastifyReply } from 'fastify';
import { AppError } from '../../errors.js';
import { oauthUser } from '../../dashboard-auth/oauth-users.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { dash, noStore, PUBLIC, setCookies, TAGS, routeOpts } from './common.js';

const Provider = Type.Object({ provider: Type.String() });

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = routeOpts;
  const back = (reply: FastifyReply, path: string) => reply.redirect(`${deps.config.publicUrl}${path}`, 302);

  app.get(
    '/dashboard-api/oauth/:provider/start',
    opts('Start OAuth sign-in', {
      params: Provider,
      querystring: Type.Object({ invite: Type.Optional(Type.String()) }),
    }),
    async (req, reply) => {
      const { provider } = req.params;
      const invite = req.query.invite;
      const s = dash(deps).oauth.start(provider, invite && /^[A-Za-z0-9]{32}$/.test(invite) ? invite : null);
      reply.header('set-cookie', s.cookie);
      return reply.redirect(s.location, 302);
    },
  );

  app.get(
    '/dashboard-api/oauth/:provider/callback',
    opts('OAuth redirect target', { params: Provider, querystring: Type.Record(Type.String(), Type.String()) }),
    async (req, reply) => {
      const d = dash(deps);
      const { provider } = req.params;
      const cookies = [d.oauth.cookie('', 0)];
      try {
        const { identity, invite } = await d.oauth.finish(provider, req.query, req.headers.cookie);
        const user = await oauthUser(deps.pool, d.accounts, deps.log, provider, identity, invite);
        const s = await d.accounts.start(req, user, undefined, 'oauth', provider === 'google' ? 'google' : 'github');
        setCookies(reply, [...cookies, ...s.cookies]);
        return back(reply, s.mfa_required ? '/dashboard/login?mfa=1' : '/dashboard/emails');
      } catch (err) {
        if (!(err instanceof AppError)) deps.log.error('oauth sign-in failed', { err, provider });
        setCookies(reply, cookies);
        const msg = err instanceof AppError ? err.message : 'Sign-in failed. Try again.';
        return back(reply, `/dashboard/login?error=${encodeURIComponent(msg)}`);
      }
    },
  );
}

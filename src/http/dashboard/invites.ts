// Invite links: what an invite is for (shown before joining), joining as the signed-in user, or
// creating an account from the link (a link emailed to the address, where the password is chosen).

import { Type } from 'typebox';
import type { ApiApp, ApiDeps } from '../types.js';
import { body, dash, noStore, PUBLIC, setCookies, TAGS, routeOpts } from './common.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = routeOpts;

  app.get(
    '/dashboard-api/invites/:token',
    opts('What an invite link is for', { params: Type.Object({ token: Type.String() }) }),
    async (req) => {
      const inv = await dash(deps).accounts.inviteFind(req.params.token);
      return { team_name: inv.team_name, role: inv.role, email: inv.email, expires_at: inv.expires_at };
    },
  );

  app.post(
    '/dashboard-api/invites/:token/accept',
    opts("Join the invite's team as the signed-in user", { params: Type.Object({ token: Type.String() }) }),
    async (req) => {
      const d = dash(deps);
      const { auth } = await d.sessions.require(req, { allowMfaSetup: true });
      return d.accounts.inviteAccept(auth, req.params.token);
    },
  );

  app.post(
    '/dashboard-api/invites/:token/signup',
    opts('Create an account from an invite link: a link is emailed to the address, where the password is chosen', {
      params: Type.Object({ token: Type.String() }),
      body: body({ email: Type.Optional(Type.Unknown()), name: Type.Optional(Type.Unknown()) }),
    }),
    async (req) => {
      return dash(deps).accounts.inviteSignup(req.params.token, req.body, req.ip);
    },
  );

  app.get(
    '/dashboard-api/verify/:token',
    opts('What an email confirmation link is for (changes nothing)', { params: Type.Object({ token: Type.String() }) }),
    async (req) => {
      return dash(deps).accounts.verificationView(req.params.token);
    },
  );

  app.post(
    '/dashboard-api/verify',
    opts("Open an email confirmation link: choose the password, join the invite's team and sign in", {
      body: body({
        token: Type.Optional(Type.Unknown()),
        password: Type.Optional(Type.Unknown()),
        name: Type.Optional(Type.Unknown()),
      }),
    }),
    async (req, reply) => {
      const s = await dash(deps).accounts.verifyEmail(req, req.body.token, req.body);
      setCookies(reply, s.cookies);
      return { mfa_required: s.mfa_required, csrf: s.csrf };
    },
  );
}

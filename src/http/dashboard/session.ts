// Sign-in endpoints: what the SPA needs to know first (state), first-run setup, password sign-in,
// the second factor, sign-out and sign-out everywhere. Public routes: they check the session themselves.

import { Type } from 'typebox';
import { originOf } from '../../audit/actor.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { body, dash, noStore, PUBLIC, setCookies, TAGS, routeOpts } from './common.js';

const Credentials = body({
  email: Type.Optional(Type.Unknown()),
  password: Type.Optional(Type.Unknown()),
  name: Type.Optional(Type.Unknown()),
});

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = routeOpts;

  app.get('/dashboard-api/state', opts('Dashboard state for the signed-in user'), async (req) => {
    const d = dash(deps);
    const found = await d.sessions.lookup(req);
    const base = {
      setup_needed: await d.accounts.setupNeeded(),
      oauth: d.oauth.enabled(),
      password_reset: d.reset.available(),
      delivery_mode: deps.config.deliveryMode,
      signed_in: false,
      mfa_pending: false,
    };
    if (!found) return base;
    const { auth, token } = found;
    if (auth.mfaPending)
      return { ...base, mfa_pending: true, csrf: d.sessions.csrfFor(token), user: { email: auth.email } };
    const teams = await d.accounts.teamsOf(auth.userId);
    const team = teams.find((t) => t.team_id === auth.teamId)!;
    return {
      ...base,
      signed_in: true,
      csrf: d.sessions.csrfFor(token),
      mfa_setup_required: auth.mfaSetupRequired,
      user: { id: auth.userId, email: auth.email, name: auth.name, totp_enabled: auth.totpEnabled },
      team: { id: auth.teamId, name: auth.teamName, role: auth.role, require_mfa: team?.require_mfa ?? false },
      teams: teams.map((t) => ({ id: t.team_id, name: t.team_name, role: t.role })),
    };
  });

  app.post(
    '/dashboard-api/setup',
    opts('First-run setup: create the owner', { body: Credentials }),
    async (req, reply) => {
      const s = await dash(deps).accounts.setup(req, req.body);
      setCookies(reply, s.cookies);
      return { mfa_required: s.mfa_required, csrf: s.csrf };
    },
  );

  app.post(
    '/dashboard-api/login',
    opts('Sign in with email and password', { body: Credentials }),
    async (req, reply) => {
      const s = await dash(deps).accounts.login(req, req.body);
      setCookies(reply, s.cookies);
      return { mfa_required: s.mfa_required, csrf: s.csrf };
    },
  );

  app.post(
    '/dashboard-api/login/mfa',
    opts('Second factor: TOTP or recovery code', { body: body({ code: Type.Optional(Type.Unknown()) }) }),
    async (req, reply) => {
      const d = dash(deps);
      const { auth } = await d.sessions.require(req, { allowPending: true, allowMfaSetup: true });
      if (!auth.mfaPending) return { mfa_required: false };
      const s = await d.secondFactor.complete(auth, req.body.code, originOf(req));
      setCookies(reply, s.cookies);
      return { mfa_required: false, csrf: s.csrf, recovery_codes_left: s.recovery_codes_left };
    },
  );

  app.post('/dashboard-api/logout', opts('Sign out of this browser'), async (req, reply) => {
    const d = dash(deps);
    const { auth } = await d.sessions.require(req, { allowPending: true, allowMfaSetup: true }); // CSRF-checked
    await d.sessions.end(auth.sessionId);
    d.sessions.clearCookies(reply);
    return { signed_out: true };
  });

  app.post('/dashboard-api/logout-all', opts('Sign out everywhere'), async (req, reply) => {
    const d = dash(deps);
    const { auth } = await d.sessions.require(req, { allowMfaSetup: true });
    const ended = await d.accounts.signOutEverywhere(auth.userId);
    d.sessions.clearCookies(reply);
    return { signed_out: true, sessions_ended: ended };
  });
}

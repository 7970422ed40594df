// The dashboard's HTTP surface: the built SPA, and the dashboard-only endpoints under
// /dashboard-api/ (sign-in, account, team, invites, OAuth sign-in, OAuth consent and clients,
// password reset, raw MIME, the audit log's CSV). Its data comes from the ordinary API, authenticated by the session
// cookie (see http/hooks.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ApiDeps } from '../types.js';
import account from './account.js';
import apiKeys from './api-keys.js';
import auditLog from './audit-log.js';
import emailsRaw from './emails-raw.js';
import invites from './invites.js';
import oauth from './oauth.js';
import oauthClients from './oauth-clients.js';
import oauthConsent from './oauth-consent.js';
import passwordReset from './password-reset.js';
import session from './session.js';
import team from './team.js';
import teamSessions from './team-sessions.js';
import { registerUi } from './ui.js';

export async function registerDashboard(app: FastifyInstance, deps: ApiDeps): Promise<void> {
  await registerUi(app);
  if (!deps.dashboard) return;
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  for (const register of [
    session,
    account,
    team,
    teamSessions,
    invites,
    oauth,
    passwordReset,
    emailsRaw,
    apiKeys,
    auditLog,
    oauthConsent,
    oauthClients,
  ])
    register(typed, deps);
}

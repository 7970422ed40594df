// The consent page's endpoints (the SPA's /dashboard/oauth/authorize, reached from GET
// /oauth/authorize). GET shows what is asked: the client, the scope, and the signed-in user's
// teams with whether they may approve for each (owners and admins; members only look). POST
// approves for one team or denies; it is a session POST, so the CSRF header is checked
// (sessions.ts), and the authorization request is checked again from what the page sends back.
// → {redirect_to}: the client's redirect_uri with code and state, or error=access_denied.
import { originOf, userActor } from '../../audit/actor.js';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { body, dash, routeOpts } from './common.js';

const ConsentQuery = Type.Record(Type.String(), Type.Unknown());

export default function register(app: ApiApp, deps: ApiDeps): void {
  const checked = async (q: Record<string, unknown>) => {
    const check = await deps.oauth.check(q);
    if (!check.ok)
      throw new AppError('validation_error', `This authorization request is not valid: ${check.description}`);
    return check.request;
  };

  app.get(
    '/dashboard-api/oauth-consent',
    routeOpts('What an OAuth client asks for', { querystring: ConsentQuery }),
    async (req) => {
      const d = dash(deps);
      const { auth } = await d.sessions.require(req);
      const r = await checked(req.query);
      const teams = await d.accounts.teamsOf(auth.userId);
      return {
        client: r.client,
        scope: r.scope,
        redirect_uri: r.redirectUri,
        current_team_id: auth.teamId,
        teams: teams.map((t) => ({
          id: t.team_id,
          name: t.team_name,
          role: t.role,
          can_approve: t.role !== 'member' && !(t.require_mfa && !auth.totpEnabled),
        })),
      };
    },
  );

  app.post(
    '/dashboard-api/oauth-consent',
    routeOpts('Approve or deny an OAuth client', {
      body: body({ decision: Type.Optional(Type.Unknown()), team_id: Type.Optional(Type.Unknown()) }),
    }),
    async (req) => {
      const d = dash(deps);
      const { auth } = await d.sessions.require(req); // CSRF-checked: a POST
      const r = await checked(req.body);
      if (req.body.decision === 'deny') return { redirect_to: deps.oauth.deny(r) };
      if (req.body.decision !== 'approve')
        throw new AppError('validation_error', 'decision must be "approve" or "deny".');
      const team = (await d.accounts.teamsOf(auth.userId)).find((t) => t.team_id === req.body.team_id);
      if (!team) throw new AppError('validation_error', 'Choose one of your teams.');
      if (team.role === 'member')
        throw new AppError('forbidden', 'Members cannot grant access to a team; ask an admin or owner.');
      if (team.require_mfa && !auth.totpEnabled)
        throw new AppError('forbidden', `${team.team_name} requires two-factor authentication: set it up first.`);
      return {
        redirect_to: await deps.oauth.approve(
          r,
          { userId: auth.userId, teamId: team.team_id },
          userActor(auth, originOf(req)),
        ),
      };
    },
  );
}

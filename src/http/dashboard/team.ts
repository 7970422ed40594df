// Team settings for the signed-in user's current team: members and roles, invite links, the
// "require MFA" switch, switching to another team and creating one. Owners and admins manage
// members (only owners touch owners and settings); members only look.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { originOf } from '../../audit/actor.js';
import { requireRole } from '../../dashboard-auth/sessions.js';
import { checkSessionPolicy } from '../../dashboard-auth/teams.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { body, dash, noStore, PUBLIC, TAGS, routeOpts } from './common.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = routeOpts;
  const session = (req: FastifyRequest) => dash(deps).sessions.require(req);

  app.get('/dashboard-api/team', opts('Members and open invites of the current team'), async (req) => {
    const { auth } = await session(req);
    const d = dash(deps);
    // How an invitee can join here, for the Team page to say before anyone is invited.
    const joining = { email_confirmation: d.mail.available(), oauth: d.oauth.enabled() };
    return { ...(await d.teams.view(auth)), joining };
  });

  app.patch(
    '/dashboard-api/team',
    opts(
      'Team security settings: require_mfa (owners); session_lifetime_hours (1-8760, null = none) and ' +
        'session_idle_minutes (5-20160), sign_in_methods (password, google, github) (owners and admins)',
      {
        body: body({
          require_mfa: Type.Optional(Type.Boolean()),
          session_lifetime_hours: Type.Optional(Type.Unknown()),
          session_idle_minutes: Type.Optional(Type.Unknown()),
          sign_in_methods: Type.Optional(Type.Unknown()),
        }),
      },
    ),
    async (req) => {
      const { auth } = await session(req);
      const b = req.body;
      const teams = dash(deps).teams;
      requireRole(auth, ...(b.require_mfa !== undefined ? (['owner'] as const) : (['owner', 'admin'] as const)));
      checkSessionPolicy(b); // all fields checked before any is written
      if (b.require_mfa !== undefined) await teams.setRequireMfa(auth, b.require_mfa, originOf(req));
      if (b.session_lifetime_hours !== undefined || b.session_idle_minutes !== undefined)
        await teams.setSessionPolicy(auth, b, originOf(req));
      if (b.sign_in_methods !== undefined) await teams.setSignInMethods(auth, b.sign_in_methods, originOf(req));
      return (await teams.view(auth)).security;
    },
  );

  app.post(
    '/dashboard-api/team/invites',
    opts(
      'Create an invite link; with handover: true (and email) also a one-time link that sets the password for that address and joins, for the inviter to hand over',
      {
        body: body({
          role: Type.Optional(Type.Unknown()),
          email: Type.Optional(Type.Unknown()),
          handover: Type.Optional(Type.Boolean()),
        }),
      },
    ),
    async (req) => {
      const { auth } = await session(req);
      requireRole(auth, 'owner', 'admin');
      const b = req.body;
      const a = dash(deps).accounts;
      if (b.handover) return a.inviteHandover(auth, b.role ?? 'member', b.email, deps.config.publicUrl, originOf(req));
      return a.invite(auth, b.role ?? 'member', b.email, deps.config.publicUrl, originOf(req));
    },
  );

  app.delete(
    '/dashboard-api/team/invites/:id',
    opts('Revoke an invite', { params: Type.Object({ id: Type.String() }) }),
    async (req) => {
      const { auth } = await session(req);
      requireRole(auth, 'owner', 'admin');
      const { id } = req.params;
      await dash(deps).teams.revokeInvite(auth, id);
      return { deleted: true };
    },
  );

  app.patch(
    '/dashboard-api/team/members/:userId',
    opts("Change a member's role", {
      params: Type.Object({ userId: Type.String() }),
      body: body({ role: Type.String() }),
    }),
    async (req) => {
      const { auth } = await session(req);
      requireRole(auth, 'owner', 'admin');
      const { userId } = req.params;
      const role = req.body.role;
      await dash(deps).teams.setRole(auth, userId, role, originOf(req));
      return { user_id: userId, role };
    },
  );

  app.delete(
    '/dashboard-api/team/members/:userId',
    opts('Remove a member (or leave the team)', { params: Type.Object({ userId: Type.String() }) }),
    async (req) => {
      const { auth } = await session(req);
      const { userId } = req.params;
      const leaving = userId === auth.userId;
      if (!leaving) requireRole(auth, 'owner', 'admin');
      await dash(deps).teams.removeMember(auth, userId, originOf(req));
      return { deleted: true };
    },
  );

  app.post(
    '/dashboard-api/teams/switch',
    opts('Switch the current team', { body: body({ team_id: Type.String() }) }),
    async (req) => {
      const { auth } = await dash(deps).sessions.require(req, { allowMfaSetup: true });
      await dash(deps).accounts.switchTeam(auth, req.body.team_id);
      return { team_id: req.body.team_id };
    },
  );

  app.post(
    '/dashboard-api/teams',
    opts('Create a team (you become its owner)', {
      body: body({ name: Type.String({ minLength: 1, maxLength: 100 }) }),
    }),
    async (req) => {
      const { auth } = await session(req);
      return dash(deps).teams.create(auth, req.body.name);
    },
  );
}

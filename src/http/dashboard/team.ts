// Team settings for the signed-in user's current team: members and roles, invite links, the
// "require MFA" switch, switching to another team and creating one. Owners and admins manage
// members (only owners touch owners and settings); members only look.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { requireRole } from '../../dashboard-auth/sessions.js';
import { withTx } from '../../store/db.js';
import { teamCreate } from '../../store/teams.js';
import { sessionSetTeam } from '../../store/sessions.js';
import {
  inviteDelete, invitesOfTeam, memberAdd, memberRole, memberRemove, membersOfTeam, memberSetRole, ownerCount, ROLES, teamSetRequireMfa, type Role,
} from '../../store/users.js';
import type { ApiDeps } from '../types.js';
import { body, dash, noStore, PUBLIC, TAGS } from './common.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  const opts = (summary: string, extra: object = {}) => ({ config: PUBLIC, onRequest: noStore, schema: { tags: TAGS, summary, hide: true, ...extra } });
  const session = (req: FastifyRequest) => dash(deps).sessions.require(req);

  app.get('/dashboard-api/team', opts('Members and open invites of the current team'), async (req) => {
    const { auth } = await session(req);
    const canManage = auth.role !== 'member';
    return { id: auth.teamId, name: auth.teamName, role: auth.role, members: await membersOfTeam(deps.pool, auth.teamId), invites: canManage ? await invitesOfTeam(deps.pool, auth.teamId) : [] };
  });

  app.patch('/dashboard-api/team', opts('Team settings (owners)', { body: body({ require_mfa: Type.Optional(Type.Boolean()) }) }), async (req) => {
    const { auth } = await session(req);
    requireRole(auth, 'owner');
    const b = req.body as { require_mfa?: boolean };
    if (b.require_mfa !== undefined) {
      if (b.require_mfa && !auth.totpEnabled) throw new AppError('validation_error', 'Turn on two-factor authentication for your own account first.');
      await teamSetRequireMfa(deps.pool, auth.teamId, b.require_mfa);
    }
    return { require_mfa: b.require_mfa };
  });

  app.post('/dashboard-api/team/invites', opts('Create an invite link', { body: body({ role: Type.Optional(Type.Unknown()), email: Type.Optional(Type.Unknown()) }) }), async (req) => {
    const { auth } = await session(req);
    requireRole(auth, 'owner', 'admin');
    const b = req.body as { role?: unknown; email?: unknown };
    return dash(deps).accounts.invite(auth, b.role ?? 'member', b.email, deps.config.publicUrl);
  });

  app.delete('/dashboard-api/team/invites/:id', opts('Revoke an invite'), async (req) => {
    const { auth } = await session(req);
    requireRole(auth, 'owner', 'admin');
    const { id } = req.params as { id: string };
    if (!/^[0-9a-f-]{36}$/i.test(id) || !(await inviteDelete(deps.pool, auth.teamId, id))) throw new AppError('not_found', 'Invite not found');
    return { deleted: true };
  });

  app.patch('/dashboard-api/team/members/:userId', opts('Change a member\'s role', { body: body({ role: Type.String() }) }), async (req) => {
    const { auth } = await session(req);
    requireRole(auth, 'owner', 'admin');
    const { userId } = req.params as { userId: string };
    const role = (req.body as { role: string }).role as Role;
    if (!ROLES.includes(role)) throw new AppError('validation_error', 'Role must be "owner", "admin" or "member".');
    const current = /^[0-9a-f-]{36}$/i.test(userId) ? await memberRole(deps.pool, auth.teamId, userId) : undefined;
    if (!current) throw new AppError('not_found', 'Member not found');
    if ((role === 'owner' || current === 'owner') && auth.role !== 'owner') throw new AppError('forbidden', 'Only owners can make or unmake owners.');
    await withTx(deps.pool, async (tx) => {
      await memberSetRole(tx, auth.teamId, userId, role);
      if ((await ownerCount(tx, auth.teamId)) === 0) throw new AppError('validation_error', 'A team keeps at least one owner.');
    });
    return { user_id: userId, role };
  });

  app.delete('/dashboard-api/team/members/:userId', opts('Remove a member (or leave the team)'), async (req) => {
    const { auth } = await session(req);
    const { userId } = req.params as { userId: string };
    const leaving = userId === auth.userId;
    if (!leaving) requireRole(auth, 'owner', 'admin');
    const current = /^[0-9a-f-]{36}$/i.test(userId) ? await memberRole(deps.pool, auth.teamId, userId) : undefined;
    if (!current) throw new AppError('not_found', 'Member not found');
    if (current === 'owner' && auth.role !== 'owner') throw new AppError('forbidden', 'Only owners can remove owners.');
    await withTx(deps.pool, async (tx) => {
      await memberRemove(tx, auth.teamId, userId);
      if ((await ownerCount(tx, auth.teamId)) === 0) throw new AppError('validation_error', 'A team keeps at least one owner.');
    });
    return { deleted: true };
  });

  app.post('/dashboard-api/teams/switch', opts('Switch the current team', { body: body({ team_id: Type.String() }) }), async (req) => {
    const { auth } = await dash(deps).sessions.require(req, { allowMfaSetup: true });
    await dash(deps).accounts.switchTeam(auth, (req.body as { team_id: string }).team_id);
    return { team_id: (req.body as { team_id: string }).team_id };
  });

  app.post('/dashboard-api/teams', opts('Create a team (you become its owner)', { body: body({ name: Type.String({ minLength: 1, maxLength: 100 }) }) }), async (req) => {
    const { auth } = await session(req);
    const team = await withTx(deps.pool, async (tx) => {
      const t = await teamCreate(tx, (req.body as { name: string }).name.trim());
      await memberAdd(tx, t.id, auth.userId, 'owner');
      return t;
    });
    await sessionSetTeam(deps.pool, auth.sessionId, team.id);
    return { id: team.id, name: team.name };
  });
}

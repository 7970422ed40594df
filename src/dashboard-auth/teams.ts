// Team administration for a signed-in session's current team: members and roles, open invites,
// "require MFA", creating a team. Owners and admins manage members (only owners touch owners and
// settings); members only look. A team always keeps one owner (checked inside the transaction).
import { userActor, type RequestOrigin } from '../audit/actor.js';
import { auditRecord } from '../audit/record.js';
import { AppError } from '../errors.js';
import { withTx, type Pool } from '../store/db.js';
import { sessionSetTeam } from '../store/sessions.js';
import { teamCreate } from '../store/teams.js';
import {
  inviteDelete,
  invitesOfTeam,
  memberAdd,
  memberRole,
  memberRemove,
  membersOfTeam,
  memberSetRole,
  ownerCount,
  ROLES,
  teamSetRequireMfa,
  type Role,
} from '../store/users.js';
import type { SessionAuth } from './sessions.js';

const UUID = /^[0-9a-f-]{36}$/i;

export class TeamAdmin {
  constructor(private readonly pool: Pool) {}

  async view(auth: SessionAuth) {
    const canManage = auth.role !== 'member';
    return {
      id: auth.teamId,
      name: auth.teamName,
      role: auth.role,
      members: await membersOfTeam(this.pool, auth.teamId),
      invites: canManage ? await invitesOfTeam(this.pool, auth.teamId) : [],
    };
  }

  async setRequireMfa(auth: SessionAuth, requireMfa: boolean, origin: RequestOrigin): Promise<void> {
    if (requireMfa && !auth.totpEnabled)
      throw new AppError('validation_error', 'Turn on two-factor authentication for your own account first.');
    await withTx(this.pool, async (tx) => {
      await teamSetRequireMfa(tx, auth.teamId, requireMfa);
      await auditRecord(tx, auth.teamId, userActor(auth, origin), {
        action: 'team.security_changed',
        target: { kind: 'team', id: auth.teamId },
        after: { require_mfa: requireMfa },
      });
    });
  }

  async revokeInvite(auth: SessionAuth, id: string): Promise<void> {
    if (!UUID.test(id) || !(await inviteDelete(this.pool, auth.teamId, id)))
      throw new AppError('not_found', 'Invite not found');
  }

  private async roleOf(auth: SessionAuth, userId: string): Promise<Role> {
    const current = UUID.test(userId) ? await memberRole(this.pool, auth.teamId, userId) : undefined;
    if (!current) throw new AppError('not_found', 'Member not found');
    return current;
  }

  async setRole(auth: SessionAuth, userId: string, role: string, origin: RequestOrigin): Promise<void> {
    if (!ROLES.includes(role as Role))
      throw new AppError('validation_error', 'Role must be "owner", "admin" or "member".');
    const current = await this.roleOf(auth, userId);
    if ((role === 'owner' || current === 'owner') && auth.role !== 'owner')
      throw new AppError('forbidden', 'Only owners can make or unmake owners.');
    await withTx(this.pool, async (tx) => {
      await memberSetRole(tx, auth.teamId, userId, role as Role);
      if ((await ownerCount(tx, auth.teamId)) === 0)
        throw new AppError('validation_error', 'A team keeps at least one owner.');
      await auditRecord(tx, auth.teamId, userActor(auth, origin), {
        action: 'member.role_changed',
        target: { kind: 'user', id: userId },
        before: { role: current },
        after: { role },
      });
    });
  }

  async removeMember(auth: SessionAuth, userId: string, origin: RequestOrigin): Promise<void> {
    const current = await this.roleOf(auth, userId);
    if (current === 'owner' && auth.role !== 'owner') throw new AppError('forbidden', 'Only owners can remove owners.');
    await withTx(this.pool, async (tx) => {
      await memberRemove(tx, auth.teamId, userId);
      if ((await ownerCount(tx, auth.teamId)) === 0)
        throw new AppError('validation_error', 'A team keeps at least one owner.');
      await auditRecord(tx, auth.teamId, userActor(auth, origin), {
        action: 'member.removed',
        target: { kind: 'user', id: userId },
        before: { role: current },
        after: userId === auth.userId ? { left: true } : null,
      });
    });
  }

  /** A new team owned by the user; the session switches to it. */
  async create(auth: SessionAuth, name: string): Promise<{ id: string; name: string }> {
    const team = await withTx(this.pool, async (tx) => {
      const t = await teamCreate(tx, name.trim());
      await memberAdd(tx, t.id, auth.userId, 'owner');
      return t;
    });
    await sessionSetTeam(this.pool, auth.sessionId, team.id);
    return { id: team.id, name: team.name };
  }
}

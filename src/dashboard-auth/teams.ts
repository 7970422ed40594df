// Team administration for a signed-in session's current team: members and roles, open invites,
// "require MFA", creating a team. Owners and admins manage members (only owners touch owners and
// settings); members only look. A team always keeps one owner (checked inside the transaction).
import { userActor, type RequestOrigin } from '../audit/actor.js';
import { auditRecord } from '../audit/record.js';
import { AppError, invalidField } from '../errors.js';
import { withTx, type Pool, type Tx } from '../store/db.js';
import { sessionSetTeam, sessionsDeleteOfMember, sessionsOfMember } from '../store/sessions.js';
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
  teamSecurityGet,
  type TeamSecurity,
  teamSetRequireMfa,
  teamSetSessionPolicy,
  teamSetSignInMethods,
  SIGN_IN_METHODS,
  type Role,
  type SignInMethod,
} from '../store/users.js';
import type { SessionAuth } from './sessions.js';

const UUID = /^[0-9a-f-]{36}$/i;

/** Bounds of the session policy (the same CHECKs are in migration 0056). */
export const SESSION_LIFETIME_HOURS = { min: 1, max: 8760 } as const; // null = no absolute lifetime
export const SESSION_IDLE_MINUTES = { min: 5, max: 20160, default: 20160 } as const;

function boundedInt(field: string, v: unknown, b: { min: number; max: number }): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < b.min || v > b.max)
    throw invalidField(field, `must be an integer from ${b.min} to ${b.max}.`);
  return v;
}

/** Throws 422 naming the field when a session-policy value is out of bounds (before anything is written). */
export function checkSessionPolicy(p: {
  session_lifetime_hours?: unknown;
  session_idle_minutes?: unknown;
  sign_in_methods?: unknown;
}): void {
  if (p.sign_in_methods !== undefined) checkSignInMethods(p.sign_in_methods);
  const life = p.session_lifetime_hours;
  if (life !== undefined && life !== null) boundedInt('session_lifetime_hours', life, SESSION_LIFETIME_HOURS);
  if (p.session_idle_minutes !== undefined)
    boundedInt('session_idle_minutes', p.session_idle_minutes, SESSION_IDLE_MINUTES);
}

function checkSignInMethods(v: unknown): SignInMethod[] {
  const known = SIGN_IN_METHODS as readonly unknown[];
  if (!Array.isArray(v) || !v.length || v.length > known.length || new Set(v).size !== v.length)
    throw invalidField('sign_in_methods', `must be a list of one or more of ${SIGN_IN_METHODS.join(', ')}.`);
  for (const m of v)
    if (!known.includes(m))
      throw invalidField('sign_in_methods', `must be a list of one or more of ${SIGN_IN_METHODS.join(', ')}.`);
  return v as SignInMethod[];
}

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
      security: await teamSecurityGet(this.pool, auth.teamId),
    };
  }

  /**
   * Session lifetime (hours, null = none) and idle timeout (minutes); omitted fields keep their
   * value. Applies to the team's existing sessions too, from their next request.
   */
  async setSessionPolicy(
    auth: SessionAuth,
    patch: { session_lifetime_hours?: unknown; session_idle_minutes?: unknown },
    origin: RequestOrigin,
  ): Promise<{ session_lifetime_hours: number | null; session_idle_minutes: number }> {
    checkSessionPolicy(patch);
    const life = patch.session_lifetime_hours;
    const idle = patch.session_idle_minutes;
    return this.changeSecurity(auth, origin, async (tx, before) => {
      const after = {
        session_lifetime_hours: life === undefined ? before.session_lifetime_hours : (life as number | null),
        session_idle_minutes: idle === undefined ? before.session_idle_minutes : (idle as number),
      };
      await teamSetSessionPolicy(tx, auth.teamId, after);
      return after;
    });
  }

  /**
   * One change of the team's security settings: the team's row locked and read (`before`), `change`
   * writes and returns the fields it set, and an audit entry records those fields before and after,
   * all in one transaction.
   */
  private changeSecurity<T extends Partial<TeamSecurity>>(
    auth: SessionAuth,
    origin: RequestOrigin,
    change: (tx: Tx, before: TeamSecurity) => Promise<T>,
  ): Promise<T> {
    return withTx(this.pool, async (tx) => {
      const before = await teamSecurityGet(tx, auth.teamId, true);
      const after = await change(tx, before);
      await auditRecord(tx, auth.teamId, userActor(auth, origin), {
        action: 'team.security_changed',
        target: { kind: 'team', id: auth.teamId },
        before: Object.fromEntries(Object.keys(after).map((k) => [k, before[k as keyof TeamSecurity]])),
        after,
      });
      return after;
    });
  }

  async setRequireMfa(auth: SessionAuth, requireMfa: boolean, origin: RequestOrigin): Promise<void> {
    if (requireMfa && !auth.totpEnabled)
      throw new AppError('validation_error', 'Turn on two-factor authentication for your own account first.');
    await this.changeSecurity(auth, origin, async (tx) => {
      await teamSetRequireMfa(tx, auth.teamId, requireMfa);
      return { require_mfa: requireMfa };
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

  /**
   * A member's sessions in this team (created, last seen, IP, user agent; never the token): their
   * own for anyone, any member's for owners and admins. Marks the caller's own current session.
   */
  async memberSessions(auth: SessionAuth, userId: string) {
    await this.sessionsAccess(auth, userId, false);
    const rows = await sessionsOfMember(this.pool, auth.teamId, userId);
    return { object: 'list', data: rows.map((r) => ({ ...r, current: r.id === auth.sessionId })) };
  }

  /**
   * Revokes one of a member's sessions in this team (or all, sessionId null). Sessions are looked
   * up in PostgreSQL on every request, so the next request of a revoked one fails, in any process.
   * Owners' sessions only by owners (or themselves).
   */
  async revokeMemberSessions(
    auth: SessionAuth,
    userId: string,
    sessionId: string | null,
    origin: RequestOrigin,
  ): Promise<number> {
    await this.sessionsAccess(auth, userId, true);
    if (sessionId !== null && !UUID.test(sessionId)) throw new AppError('not_found', 'Session not found');
    return withTx(this.pool, async (tx) => {
      const ended = await sessionsDeleteOfMember(tx, auth.teamId, userId, sessionId);
      if (sessionId !== null && ended === 0) throw new AppError('not_found', 'Session not found');
      await auditRecord(tx, auth.teamId, userActor(auth, origin), {
        action: 'member.sessions_revoked',
        target: { kind: 'user', id: userId },
        after: { sessions_ended: ended, session_id: sessionId ?? 'all' },
      });
      return ended;
    });
  }

  /**
   * Which ways of signing in the team allows. Sessions that signed in another way end on their next
   * request; the caller's own method must stay allowed (no locking oneself out).
   */
  async setSignInMethods(auth: SessionAuth, value: unknown, origin: RequestOrigin): Promise<SignInMethod[]> {
    const methods = checkSignInMethods(value);
    if (auth.signInMethod && !methods.includes(auth.signInMethod))
      throw invalidField('sign_in_methods', `must include ${auth.signInMethod}, the way you signed in.`);
    const sorted = SIGN_IN_METHODS.filter((m) => methods.includes(m));
    await this.changeSecurity(auth, origin, async (tx) => {
      await teamSetSignInMethods(tx, auth.teamId, sorted);
      return { sign_in_methods: sorted };
    });
    return sorted;
  }

  private async sessionsAccess(auth: SessionAuth, userId: string, changing: boolean): Promise<void> {
    const role = await this.roleOf(auth, userId); // 404 for anyone not a member of this team
    if (userId === auth.userId) return;
    if (auth.role === 'member') throw new AppError('forbidden', "Only owners and admins see other members' sessions.");
    if (changing && role === 'owner' && auth.role !== 'owner')
      throw new AppError('forbidden', "Only owners can end an owner's sessions.");
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

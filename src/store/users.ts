// Dashboard users and their team memberships and invites. Every membership query is keyed by the
// user AND the team: a user only ever reaches the teams they belong to.
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';

export type Role = 'owner' | 'admin' | 'member';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];

export interface UserRow {
  id: string;
  email: string;
  name: string;
  password_hash: string | null;
  totp_secret: string | null;
  totp_enabled: boolean;
  totp_last_step: string; // bigint as text
  email_verified: boolean;
  /** the address was taken on an inviter's word (a handed-over set-password link), not proven by mail (0044) */
  email_vouched: boolean;
  created_at: string;
}

const USER_COLUMNS =
  'id, email, name, password_hash, totp_secret, totp_enabled, totp_last_step, email_verified_at IS NOT NULL AS email_verified, email_vouched, created_at::text AS created_at';

export async function userCount(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM (SELECT 1 FROM users LIMIT 1) u');
  return Number(rows[0].n);
}

/** `verified`: the address was proven (a provider's verified email) or vouched for (the first owner at setup). */
export async function userInsert(
  db: Queryable,
  u: { email: string; name: string; passwordHash: string | null; verified: boolean },
): Promise<UserRow> {
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (id, email, name, password_hash, email_verified_at) VALUES ($1, $2, $3, $4, CASE WHEN $5 THEN now() END) RETURNING ${USER_COLUMNS}`,
    [uuid(), u.email, u.name, u.passwordHash, u.verified],
  );
  return rows[0];
}

/**
 * A provider proved the address of an account nobody had proven: whoever set its password (maybe
 * not the address's owner) loses it, with its sessions and pending links; the account is verified.
 */
export async function userClaimUnverified(db: Queryable, id: string): Promise<void> {
  await db.query(
    `WITH s AS (DELETE FROM sessions WHERE user_id = $1), v AS (DELETE FROM email_verifications WHERE user_id = $1)
     UPDATE users SET password_hash = NULL, email_verified_at = now(), email_vouched = false
     WHERE id = $1 AND (email_verified_at IS NULL OR email_vouched)`,
    [id],
  );
}

/**
 * The owner of the address proved it (a confirmation or reset link opened) and chose this password.
 * If nobody had proven the address before, anything set on the account before now was set by
 * someone who maybe did not own it: its second factor, recovery codes and sessions go, and the
 * password is the one just chosen. Answers whether the account was unproven until now.
 */
export async function userProveAddress(db: Queryable, id: string, passwordHash: string | null): Promise<boolean> {
  const { rows } = await db.query<{ was_unproven: boolean }>(
    `WITH before AS (SELECT email_verified_at IS NULL AS was_unproven FROM users WHERE id = $1 FOR UPDATE),
     s AS (DELETE FROM sessions WHERE user_id = $1 AND (SELECT was_unproven FROM before)),
     r AS (DELETE FROM recovery_codes WHERE user_id = $1 AND (SELECT was_unproven FROM before)),
     u AS (UPDATE users SET password_hash = coalesce($2, password_hash), email_verified_at = now(),
             totp_secret = NULL, totp_enabled = false, totp_last_step = 0
           WHERE id = $1 AND email_verified_at IS NULL)
     SELECT was_unproven FROM before`,
    [id, passwordHash],
  );
  return rows[0]?.was_unproven ?? false;
}

/** Marks the address as vouched for by an inviter (true) or proven by mail (false); see 0044. */
export async function userSetVouched(db: Queryable, id: string, vouched: boolean): Promise<void> {
  await db.query('UPDATE users SET email_vouched = $2 WHERE id = $1', [id, vouched]);
}

export async function userFindByEmail(db: Queryable, email: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE lower(email) = lower($1)`, [email]);
  return rows[0];
}

export async function userFindById(db: Queryable, id: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0];
}

export async function userSetPassword(db: Queryable, id: string, passwordHash: string): Promise<void> {
  await db.query('UPDATE users SET password_hash = $2 WHERE id = $1', [id, passwordHash]);
}

export async function userSetName(db: Queryable, id: string, name: string): Promise<void> {
  await db.query('UPDATE users SET name = $2 WHERE id = $1', [id, name]);
}

/** Sets the TOTP secret and state; a new secret (enrolment) forgets the last used step. */
export async function userSetTotp(
  db: Queryable,
  id: string,
  sealedSecret: string | null,
  enabled: boolean,
): Promise<void> {
  await db.query(
    `UPDATE users SET totp_secret = $2, totp_enabled = $3,
       totp_last_step = CASE WHEN totp_secret IS NOT DISTINCT FROM $2 THEN totp_last_step ELSE 0 END WHERE id = $1`,
    [id, sealedSecret, enabled],
  );
}

/** Accepts a TOTP time step once: false when this step (or a later one) was already used. */
export async function userClaimTotpStep(db: Queryable, id: string, step: number): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE users SET totp_last_step = $2 WHERE id = $1 AND totp_last_step < $2', [
    id,
    step,
  ]);
  return Boolean(rowCount);
}

export const SIGN_IN_METHODS = ['password', 'google', 'github'] as const;
export type SignInMethod = (typeof SIGN_IN_METHODS)[number];

export interface Membership {
  team_id: string;
  sign_in_methods: SignInMethod[];
  team_name: string;
  role: Role;
  require_mfa: boolean;
  /** the installation's first team: its owners are the operator in the dashboard (OAuth clients) */
  is_default: boolean;
}

export async function membershipsOfUser(db: Queryable, userId: string): Promise<Membership[]> {
  const { rows } = await db.query<Membership>(
    `SELECT m.team_id, t.name AS team_name, m.role, t.require_mfa, t.is_default, t.sign_in_methods FROM team_members m JOIN teams t ON t.id = m.team_id
     WHERE m.user_id = $1 ORDER BY t.is_default DESC, t.created_at, t.id`,
    [userId],
  );
  return rows;
}

export async function memberAdd(db: Queryable, teamId: string, userId: string, role: Role): Promise<void> {
  await db.query(
    'INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, $3) ON CONFLICT (team_id, user_id) DO NOTHING',
    [teamId, userId, role],
  );
}

export async function membersOfTeam(db: Queryable, teamId: string) {
  const { rows } = await db.query<{
    user_id: string;
    email: string;
    name: string;
    role: Role;
    totp_enabled: boolean;
    created_at: string;
  }>(
    `SELECT u.id AS user_id, u.email, u.name, m.role, u.totp_enabled, m.created_at::text AS created_at
     FROM team_members m JOIN users u ON u.id = m.user_id WHERE m.team_id = $1 ORDER BY m.created_at, u.id`,
    [teamId],
  );
  return rows;
}

export async function memberRole(db: Queryable, teamId: string, userId: string): Promise<Role | undefined> {
  const { rows } = await db.query<{ role: Role }>('SELECT role FROM team_members WHERE team_id = $1 AND user_id = $2', [
    teamId,
    userId,
  ]);
  return rows[0]?.role;
}

export async function memberSetRole(db: Queryable, teamId: string, userId: string, role: Role): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE team_members SET role = $3 WHERE team_id = $1 AND user_id = $2', [
    teamId,
    userId,
    role,
  ]);
  return Boolean(rowCount);
}

export async function memberRemove(db: Queryable, teamId: string, userId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM team_members WHERE team_id = $1 AND user_id = $2', [teamId, userId]);
  return Boolean(rowCount);
}

export async function ownerCount(db: Queryable, teamId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `SELECT count(*) AS n FROM team_members WHERE team_id = $1 AND role = 'owner'`,
    [teamId],
  );
  return Number(rows[0].n);
}

export async function teamSetRequireMfa(db: Queryable, teamId: string, requireMfa: boolean): Promise<void> {
  await db.query('UPDATE teams SET require_mfa = $2 WHERE id = $1', [teamId, requireMfa]);
}

export interface TeamSecurity {
  require_mfa: boolean;
  session_lifetime_hours: number | null;
  session_idle_minutes: number;
  sign_in_methods: SignInMethod[];
}

/** With `forUpdate`, the row stays locked until the transaction ends (a before/after pair that holds). */
export async function teamSecurityGet(db: Queryable, teamId: string, forUpdate = false): Promise<TeamSecurity> {
  const { rows } = await db.query<TeamSecurity>(
    `SELECT require_mfa, session_lifetime_hours, session_idle_minutes, sign_in_methods FROM teams WHERE id = $1${
      forUpdate ? ' FOR UPDATE' : ''
    }`,
    [teamId],
  );
  return rows[0];
}

export async function teamSetSessionPolicy(
  db: Queryable,
  teamId: string,
  p: { session_lifetime_hours: number | null; session_idle_minutes: number },
): Promise<void> {
  await db.query('UPDATE teams SET session_lifetime_hours = $2, session_idle_minutes = $3 WHERE id = $1', [
    teamId,
    p.session_lifetime_hours,
    p.session_idle_minutes,
  ]);
}

export async function teamSetSignInMethods(db: Queryable, teamId: string, methods: SignInMethod[]): Promise<void> {
  await db.query('UPDATE teams SET sign_in_methods = $2 WHERE id = $1', [teamId, methods]);
}

export interface InviteRow {
  id: string;
  team_id: string;
  team_name: string;
  role: Role;
  email: string | null;
  expires_at: string;
  accepted_at: string | null;
  created_at: string;
  /** Who made the invite (null when that user was deleted): named in the confirmation mail. */
  invited_by_name: string | null;
  invited_by_email: string | null;
}

export async function inviteInsert(
  db: Queryable,
  i: { teamId: string; tokenHash: string; role: Role; email: string | null; createdBy: string; expiresAt: Date },
): Promise<string> {
  const id = uuid();
  await db.query(
    'INSERT INTO team_invites (id, team_id, token_hash, role, email, created_by, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
    [id, i.teamId, i.tokenHash, i.role, i.email, i.createdBy, i.expiresAt],
  );
  return id;
}

const INVITE_COLUMNS = `i.id, i.team_id, t.name AS team_name, i.role, i.email, i.expires_at::text AS expires_at,
  i.accepted_at::text AS accepted_at, i.created_at::text AS created_at,
  (SELECT c.name FROM users c WHERE c.id = i.created_by) AS invited_by_name, (SELECT c.email FROM users c WHERE c.id = i.created_by) AS invited_by_email`;

export async function invitesOfTeam(db: Queryable, teamId: string): Promise<InviteRow[]> {
  const { rows } = await db.query<InviteRow>(
    `SELECT ${INVITE_COLUMNS} FROM team_invites i JOIN teams t ON t.id = i.team_id
     WHERE i.team_id = $1 AND i.accepted_at IS NULL AND i.expires_at > now() ORDER BY i.created_at DESC`,
    [teamId],
  );
  return rows;
}

/** A pending, unexpired invite by its token hash. */
export async function inviteFindOpen(db: Queryable, tokenHash: string): Promise<InviteRow | undefined> {
  const { rows } = await db.query<InviteRow>(
    `SELECT ${INVITE_COLUMNS} FROM team_invites i JOIN teams t ON t.id = i.team_id
     WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}

/** An invite by id, whatever its state (what a confirmation link names). */
export async function inviteFindById(db: Queryable, id: string): Promise<InviteRow | undefined> {
  const { rows } = await db.query<InviteRow>(
    `SELECT ${INVITE_COLUMNS} FROM team_invites i JOIN teams t ON t.id = i.team_id WHERE i.id = $1`,
    [id],
  );
  return rows[0];
}

/** Marks an invite used; its team and role, or undefined when someone else used it first (or it expired). */
export async function inviteConsume(db: Queryable, id: string): Promise<{ team_id: string; role: Role } | undefined> {
  const { rows } = await db.query<{ team_id: string; role: Role }>(
    'UPDATE team_invites SET accepted_at = now() WHERE id = $1 AND accepted_at IS NULL AND expires_at > now() RETURNING team_id, role',
    [id],
  );
  return rows[0];
}

export async function inviteDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'DELETE FROM team_invites WHERE team_id = $1 AND id = $2 AND accepted_at IS NULL',
    [teamId, id],
  );
  return Boolean(rowCount);
}

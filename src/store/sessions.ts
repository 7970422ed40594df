// Dashboard sessions (looked up by the hash of the cookie token) and the login-throttle counters.
// A session resolves only while its user is still a member of the session's team.
import { uuid } from '../lib/ids.js';
import type { Queryable, Tx } from './db.js';
import type { Role, SignInMethod } from './users.js';

export interface SessionRow {
  id: string;
  user_id: string;
  team_id: string;
  mfa_pending: boolean;
  email: string;
  name: string;
  totp_enabled: boolean;
  role: Role | null; // null when the user is no longer a member of the session's team
  team_name: string | null;
  require_mfa: boolean;
  created_at: Date;
  last_seen_at: Date;
  /** the team's policy (migration 0056): absolute lifetime (null = none) and idle timeout */
  session_lifetime_hours: number | null;
  session_idle_minutes: number;
  /** how the session signed in (null: before migration 0056) and what its team allows */
  sign_in_method: SignInMethod | null;
  sign_in_methods: SignInMethod[];
}

export async function sessionInsert(
  db: Queryable,
  s: {
    tokenHash: string;
    userId: string;
    teamId: string;
    mfaPending: boolean;
    ip: string | null;
    userAgent: string | null;
    expiresAt: Date;
    method: SignInMethod;
  },
): Promise<string> {
  const id = uuid();
  await db.query(
    `INSERT INTO sessions (id, token_hash, user_id, team_id, mfa_pending, ip, user_agent, expires_at, sign_in_method)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [id, s.tokenHash, s.userId, s.teamId, s.mfaPending, s.ip, s.userAgent, s.expiresAt, s.method],
  );
  return id;
}

/** The live session behind a token hash, with its user and the user's role in its team. */
export async function sessionFindByHash(db: Queryable, tokenHash: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT s.id, s.user_id, s.team_id, s.mfa_pending, u.email, u.name, u.totp_enabled, m.role, t.name AS team_name,
            coalesce(t.require_mfa, false) AS require_mfa, s.created_at, s.last_seen_at,
            t.session_lifetime_hours, coalesce(t.session_idle_minutes, 20160) AS session_idle_minutes,
            s.sign_in_method, coalesce(t.sign_in_methods, '{password,google,github}') AS sign_in_methods
     FROM sessions s JOIN users u ON u.id = s.user_id
     LEFT JOIN team_members m ON m.team_id = s.team_id AND m.user_id = s.user_id
     LEFT JOIN teams t ON t.id = s.team_id
     WHERE s.token_hash = $1 AND s.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}

/** Sliding expiry: called at most once a minute per session. */
export async function sessionTouch(db: Queryable, id: string, expiresAt: Date): Promise<void> {
  await db.query('UPDATE sessions SET last_seen_at = now(), expires_at = $2 WHERE id = $1', [id, expiresAt]);
}

export async function sessionSetTeam(db: Queryable, id: string, teamId: string): Promise<void> {
  await db.query('UPDATE sessions SET team_id = $2 WHERE id = $1', [id, teamId]);
}

/** Ends the second-factor wait: the same row becomes a full session under a new token. */
export async function sessionPromote(db: Queryable, id: string, newTokenHash: string, expiresAt: Date): Promise<void> {
  await db.query('UPDATE sessions SET mfa_pending = false, token_hash = $2, expires_at = $3 WHERE id = $1', [
    id,
    newTokenHash,
    expiresAt,
  ]);
}

export async function sessionDelete(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE id = $1', [id]);
}

/** Log out everywhere (or everywhere but one session). */
export async function sessionDeleteAllOfUser(
  db: Queryable,
  userId: string,
  exceptId: string | null = null,
): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2', [
    userId,
    exceptId,
  ]);
  return rowCount ?? 0;
}

export async function sessionsDeleteExpired(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE expires_at < now()');
  return rowCount ?? 0;
}

/** A member's live sessions in one team (never the token or its hash). */
export async function sessionsOfMember(db: Queryable, teamId: string, userId: string) {
  const { rows } = await db.query<{
    id: string;
    ip: string | null;
    user_agent: string | null;
    created_at: string;
    last_seen_at: string;
  }>(
    `SELECT id, ip, user_agent, created_at::text AS created_at, last_seen_at::text AS last_seen_at
     FROM sessions WHERE team_id = $1 AND user_id = $2 AND expires_at > now() AND NOT mfa_pending
     ORDER BY last_seen_at DESC LIMIT 200`,
    [teamId, userId],
  );
  return rows;
}

/** Revokes one session (id given) or all of a member's sessions in one team; answers how many ended. */
export async function sessionsDeleteOfMember(
  db: Queryable,
  teamId: string,
  userId: string,
  sessionId: string | null,
): Promise<number> {
  const { rowCount } = await db.query(
    'DELETE FROM sessions WHERE team_id = $1 AND user_id = $2 AND ($3::uuid IS NULL OR id = $3::uuid)',
    [teamId, userId, sessionId],
  );
  return rowCount ?? 0;
}

export async function sessionsOfUser(db: Queryable, userId: string) {
  const { rows } = await db.query<{
    id: string;
    ip: string | null;
    user_agent: string | null;
    created_at: string;
    last_seen_at: string;
  }>(
    `SELECT id, ip, user_agent, created_at::text AS created_at, last_seen_at::text AS last_seen_at
     FROM sessions WHERE user_id = $1 AND expires_at > now() AND NOT mfa_pending ORDER BY last_seen_at DESC`,
    [userId],
  );
  return rows;
}

/**
 * Locks the counter rows of the keys (created at zero if absent) until the transaction ends, in
 * key order so that two attempts cannot deadlock, and answers each key's seconds of lock left
 * (0 = open). Concurrent attempts on a key wait here, so each sees the counts of those before it.
 */
export async function throttleLockKeys(tx: Tx, keys: string[]): Promise<Map<string, number>> {
  const { rows } = await tx.query<{ key: string; wait: number }>(
    `INSERT INTO login_throttle AS t (key, failures, window_start)
     SELECT k, 0, now() FROM unnest($1::text[]) AS k ORDER BY k
     ON CONFLICT (key) DO UPDATE SET key = t.key
     RETURNING t.key, greatest(0, coalesce(ceil(extract(epoch FROM t.locked_until - now())), 0))::int AS wait`,
    [[...new Set(keys)].sort()],
  );
  return new Map(rows.map((r) => [r.key, r.wait]));
}

/**
 * Counts one attempt on each key (rows locked by throttleLockKeys, none of them locked): a key
 * whose window has passed or whose lock has ended starts a new window; the `max`-th attempt in
 * a window locks the key for `lockS` seconds.
 */
export async function throttleCount(
  tx: Tx,
  keys: { key: string; max: number; windowS: number; lockS: number }[],
): Promise<void> {
  if (!keys.length) return;
  await tx.query(
    `WITH k AS (SELECT * FROM json_to_recordset($1::json) AS k (key text, max int, "windowS" int, "lockS" int)),
     n AS (
       SELECT t.key, k.max, k."lockS" AS lock_s,
              CASE WHEN t.locked_until IS NOT NULL OR t.window_start < now() - make_interval(secs => k."windowS") THEN 1 ELSE t.failures + 1 END AS failures
       FROM login_throttle t JOIN k ON k.key = t.key)
     UPDATE login_throttle t SET
       failures = n.failures,
       window_start = CASE WHEN n.failures = 1 THEN now() ELSE t.window_start END,
       locked_until = CASE WHEN n.failures >= n.max THEN now() + make_interval(secs => n.lock_s) END
     FROM n WHERE t.key = n.key`,
    [JSON.stringify(keys)],
  );
}

/**
 * A good attempt gives its own count back to each key it was counted on; a lock that the count
 * left no longer reaches (the good attempt was the one that completed it) is lifted.
 */
export async function throttleRelease(db: Queryable, keys: { key: string; max: number }[]): Promise<void> {
  if (!keys.length) return;
  await db.query(
    `UPDATE login_throttle t SET failures = t.failures - 1,
       locked_until = CASE WHEN t.failures - 1 < k.max THEN NULL ELSE t.locked_until END
     FROM json_to_recordset($1::json) AS k (key text, max int)
     WHERE t.key = k.key AND t.failures > 0`,
    [JSON.stringify(keys.map(({ key, max }) => ({ key, max })))],
  );
}

export async function throttleDeleteStale(db: Queryable, windowS: number): Promise<void> {
  await db.query(
    'DELETE FROM login_throttle WHERE window_start < now() - make_interval(secs => $1) AND (locked_until IS NULL OR locked_until < now())',
    [windowS],
  );
}

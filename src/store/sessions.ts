// Dashboard sessions (looked up by the hash of the cookie token) and the login-throttle counters.
// A session resolves only while its user is still a member of the session's team.
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';
import type { Role } from './users.js';

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
  last_seen_at: Date;
}

export async function sessionInsert(db: Queryable, s: { tokenHash: string; userId: string; teamId: string; mfaPending: boolean; ip: string | null; userAgent: string | null; expiresAt: Date }): Promise<string> {
  const id = uuid();
  await db.query(
    `INSERT INTO sessions (id, token_hash, user_id, team_id, mfa_pending, ip, user_agent, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [id, s.tokenHash, s.userId, s.teamId, s.mfaPending, s.ip, s.userAgent, s.expiresAt],
  );
  return id;
}

/** The live session behind a token hash, with its user and the user's role in its team. */
export async function sessionFindByHash(db: Queryable, tokenHash: string): Promise<SessionRow | undefined> {
  const { rows } = await db.query<SessionRow>(
    `SELECT s.id, s.user_id, s.team_id, s.mfa_pending, u.email, u.name, u.totp_enabled, m.role, t.name AS team_name,
            coalesce(t.require_mfa, false) AS require_mfa, s.last_seen_at
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
  await db.query('UPDATE sessions SET mfa_pending = false, token_hash = $2, expires_at = $3 WHERE id = $1', [id, newTokenHash, expiresAt]);
}

export async function sessionDelete(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM sessions WHERE id = $1', [id]);
}

/** Log out everywhere (or everywhere but one session). */
export async function sessionDeleteAllOfUser(db: Queryable, userId: string, exceptId: string | null = null): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE user_id = $1 AND id IS DISTINCT FROM $2', [userId, exceptId]);
  return rowCount ?? 0;
}

export async function sessionsDeleteExpired(db: Queryable): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM sessions WHERE expires_at < now()');
  return rowCount ?? 0;
}

export async function sessionsOfUser(db: Queryable, userId: string) {
  const { rows } = await db.query<{ id: string; ip: string | null; user_agent: string | null; created_at: string; last_seen_at: string }>(
    `SELECT id, ip, user_agent, created_at::text AS created_at, last_seen_at::text AS last_seen_at
     FROM sessions WHERE user_id = $1 AND expires_at > now() AND NOT mfa_pending ORDER BY last_seen_at DESC`,
    [userId],
  );
  return rows;
}

/**
 * Counts an attempt for each key in one statement, before the attempt is checked, so concurrent
 * attempts cannot all pass: a key's window restarts after `windowS` seconds (unless it is locked);
 * the `max`-th attempt in a window locks the key for `lockS` seconds. Answers the seconds to wait
 * when any key was already past its limit (this attempt must be refused), else 0.
 */
export async function throttleReserve(db: Queryable, keys: { key: string; max: number }[], windowS: number, lockS: number): Promise<number> {
  const { rows } = await db.query<{ wait: number }>(
    `WITH k AS (SELECT * FROM json_to_recordset($1::json) AS k (key text, max int)),
     up AS (
       INSERT INTO login_throttle AS t (key, failures, window_start, locked_until)
       SELECT k.key, 1, now(), CASE WHEN k.max <= 1 THEN now() + make_interval(secs => $3) END FROM k
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN coalesce(t.locked_until <= now(), true) AND t.window_start < now() - make_interval(secs => $2) THEN 1 ELSE t.failures + 1 END,
         window_start = CASE WHEN coalesce(t.locked_until <= now(), true) AND t.window_start < now() - make_interval(secs => $2) THEN now() ELSE t.window_start END,
         locked_until = CASE
           WHEN t.locked_until > now() THEN t.locked_until
           WHEN t.window_start >= now() - make_interval(secs => $2) AND t.failures + 1 >= (SELECT k2.max FROM k AS k2 WHERE k2.key = t.key)
           THEN now() + make_interval(secs => $3) ELSE NULL END
       RETURNING t.key, t.failures, t.locked_until)
     SELECT coalesce(max(ceil(extract(epoch FROM up.locked_until - now()))::int) FILTER (WHERE up.failures > k.max), 0) AS wait
     FROM up JOIN k ON k.key = up.key`,
    [JSON.stringify(keys), windowS, lockS],
  );
  return rows[0]?.wait ?? 0;
}

/** A good attempt gives its count back to a shared key (the per-address one). */
export async function throttleRelease(db: Queryable, key: string): Promise<void> {
  await db.query('UPDATE login_throttle SET failures = failures - 1 WHERE key = $1 AND failures > 0', [key]);
}

export async function throttleClear(db: Queryable, key: string): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE key = $1', [key]);
}

export async function throttleDeleteStale(db: Queryable, windowS: number): Promise<void> {
  await db.query('DELETE FROM login_throttle WHERE window_start < now() - make_interval(secs => $1) AND (locked_until IS NULL OR locked_until < now())', [windowS]);
}

// Domain claims: their rows and status moves (domains/claims.ts decides them). Every move is
// guarded by the statuses it leaves, so two verifications racing cannot both complete a claim.
import type { Queryable } from './db.js';

export type ClaimStatus =
  | 'pending'
  | 'verified'
  | 'completed'
  | 'blocked'
  | 'expired'
  | 'superseded'
  | 'canceled'
  | 'failed';
export type ClaimBlockedReason = 'grace_period' | 'recent_owner_activity' | 'pending_scheduled_emails';
export const OPEN_CLAIM: ClaimStatus[] = ['pending', 'failed', 'verified', 'blocked'];

export interface ClaimRow {
  id: string;
  team_id: string;
  domain_id: string;
  name: string;
  settings: Record<string, unknown>;
  token: string;
  status: ClaimStatus;
  blocked_reason: ClaimBlockedReason | null;
  failure_reason: string | null;
  from_team_id: string | null;
  verified_at: string | null;
  completed_at: string | null;
  created_at: string;
  expires_at: string;
  /** expires_at has passed (read from the database clock) */
  past_expiry: boolean;
}

const COLUMNS = `id, team_id, domain_id, name, settings, token, status, blocked_reason, failure_reason, from_team_id,
  verified_at::text AS verified_at, completed_at::text AS completed_at, created_at::text AS created_at,
  expires_at::text AS expires_at, expires_at <= now() AS past_expiry`;

export async function claimInsert(
  db: Queryable,
  c: {
    id: string;
    team_id: string;
    domain_id: string;
    name: string;
    settings: object;
    token: string;
    ttlSeconds: number;
  },
): Promise<ClaimRow> {
  const { rows } = await db.query<ClaimRow>(
    `INSERT INTO domain_claims (id, team_id, domain_id, name, settings, token, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7)) RETURNING ${COLUMNS}`,
    [c.id, c.team_id, c.domain_id, c.name, JSON.stringify(c.settings), c.token, c.ttlSeconds],
  );
  return rows[0];
}

/** The team's latest claim for a placeholder domain id. */
export async function claimLatestForDomain(
  db: Queryable,
  teamId: string,
  domainId: string,
): Promise<ClaimRow | undefined> {
  const { rows } = await db.query<ClaimRow>(
    `SELECT ${COLUMNS} FROM domain_claims WHERE team_id = $1 AND domain_id = $2 ORDER BY created_at DESC, id DESC LIMIT 1`,
    [teamId, domainId],
  );
  return rows[0];
}

/** The team's latest claim for a domain name (any status), locked when `lock`. */
export async function claimLatestForName(db: Queryable, teamId: string, name: string): Promise<ClaimRow | undefined> {
  const { rows } = await db.query<ClaimRow>(
    `SELECT ${COLUMNS} FROM domain_claims WHERE team_id = $1 AND lower(name) = lower($2) ORDER BY created_at DESC, id DESC LIMIT 1`,
    [teamId, name],
  );
  return rows[0];
}

/** Locks a claim's row for its verification; undefined when gone. */
export async function claimLock(db: Queryable, id: string): Promise<ClaimRow | undefined> {
  const { rows } = await db.query<ClaimRow>(`SELECT ${COLUMNS} FROM domain_claims WHERE id = $1 FOR UPDATE`, [id]);
  return rows[0];
}

/** Moves a claim out of one of `from`; returns the row after, or undefined when it was not in one of them. */
export async function claimMove(
  db: Queryable,
  id: string,
  from: ClaimStatus[],
  to: ClaimStatus,
  set: { blockedReason?: ClaimBlockedReason | null; failureReason?: string | null; fromTeamId?: string } = {},
): Promise<ClaimRow | undefined> {
  const { rows } = await db.query<ClaimRow>(
    `UPDATE domain_claims SET status = $3, blocked_reason = $4, failure_reason = $5, updated_at = now(),
       from_team_id = coalesce($6::uuid, from_team_id),
       verified_at = CASE WHEN $3 IN ('verified', 'blocked', 'completed') THEN coalesce(verified_at, now()) ELSE verified_at END,
       completed_at = CASE WHEN $3 = 'completed' THEN now() ELSE completed_at END
     WHERE id = $1 AND status = ANY($2::text[]) RETURNING ${COLUMNS}`,
    [id, from, to, set.blockedReason ?? null, set.failureReason ?? null, set.fromTeamId ?? null],
  );
  return rows[0];
}

/** Once a claim completed: every other open claim for the name, of any team, is superseded. */
export async function claimsSupersedeOthers(db: Queryable, name: string, exceptId: string): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE domain_claims SET status = 'superseded', blocked_reason = NULL, updated_at = now()
     WHERE lower(name) = lower($1) AND id <> $2 AND status = ANY($3::text[])`,
    [name, exceptId, OPEN_CLAIM],
  );
  return rowCount ?? 0;
}

/** Whether the team has emails scheduled from the domain and not sent yet (they would leave unsigned by the new keys). */
export async function domainHasScheduledEmails(db: Queryable, teamId: string, domainId: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `SELECT 1 FROM emails WHERE team_id = $1 AND domain_id = $2 AND scheduled_at IS NOT NULL AND last_event = 'scheduled' LIMIT 1`,
    [teamId, domainId],
  );
  return Boolean(rowCount);
}

/** Serialises a team's claim creations for one name (a retried create must find the first). */
export async function claimLockName(db: Queryable, teamId: string, name: string): Promise<void> {
  await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`domain-claim:${teamId}:${name.toLowerCase()}`]);
}

/**
 * The claims a team sees in its dashboard, newest first: its own, and those on its domains that
 * were verified (in their grace period, or blocked) or that took a domain from it.
 */
export async function claimsAboutTeam(
  db: Queryable,
  teamId: string,
  limit = 100,
): Promise<(ClaimRow & { mine: boolean })[]> {
  const { rows } = await db.query<ClaimRow & { mine: boolean }>(
    `SELECT ${COLUMNS}, team_id = $1 AS mine FROM domain_claims
     WHERE team_id = $1 OR from_team_id = $1
        OR (status IN ('verified', 'blocked') AND verified_at IS NOT NULL
            AND lower(name) IN (SELECT lower(name) FROM domains WHERE team_id = $1))
     ORDER BY created_at DESC, id DESC LIMIT $2`,
    [teamId, limit],
  );
  return rows;
}

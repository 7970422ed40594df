// Idempotency keys for the send endpoints, scoped to (team, method, path, key), kept 24 hours.
import type { Queryable } from './db.js';

export interface IdempotencyRow {
  request_hash: string;
  state: 'in_flight' | 'done';
  response_status: number | null;
  response_body: unknown;
  age_ms: number;
}

/**
 * Claims the key for this request: 'claimed', the existing row, or 'racing' when another request
 * committed its claim while ours waited (ON CONFLICT saw it, but our snapshot cannot read it).
 */
export async function idempotencyClaim(
  db: Queryable,
  k: { teamId: string; method: string; path: string; key: string; hash: string },
): Promise<IdempotencyRow | 'claimed' | 'racing'> {
  const { rows } = await db.query<IdempotencyRow & { claimed: boolean }>(
    `WITH ins AS (
       INSERT INTO idempotency_keys (team_id, method, path, key, request_hash, state) VALUES ($1, $2, $3, $4, $5, 'in_flight')
       ON CONFLICT (team_id, method, path, key) DO NOTHING RETURNING true AS claimed)
     SELECT true AS claimed, NULL::text AS request_hash, NULL::text AS state, NULL::int AS response_status, NULL::jsonb AS response_body, 0::float8 AS age_ms FROM ins
     UNION ALL
     SELECT false, request_hash, state, response_status, response_body, extract(epoch FROM now() - created_at) * 1000
       FROM idempotency_keys WHERE team_id = $1 AND method = $2 AND path = $3 AND key = $4 AND NOT EXISTS (SELECT 1 FROM ins)`,
    [k.teamId, k.method, k.path, k.key, k.hash],
  );
  const r = rows[0];
  if (!r) return 'racing';
  return r.claimed ? 'claimed' : r;
}

/** Replaces an expired or abandoned claim with ours; false if someone else got there first. */
export async function idempotencyTakeOver(
  db: Queryable,
  k: { teamId: string; method: string; path: string; key: string; hash: string },
  olderThanMs: number,
  state: 'in_flight' | 'done' | 'any',
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE idempotency_keys SET request_hash = $5, state = 'in_flight', response_status = NULL, response_body = NULL, created_at = now()
     WHERE team_id = $1 AND method = $2 AND path = $3 AND key = $4 AND created_at < now() - $6::float8 * interval '1 millisecond'
       AND ($7 = 'any' OR state = $7)`,
    [k.teamId, k.method, k.path, k.key, k.hash, olderThanMs, state],
  );
  return Boolean(rowCount);
}

export async function idempotencyRelease(
  db: Queryable,
  k: { teamId: string; method: string; path: string; key: string },
): Promise<void> {
  await db.query(
    `DELETE FROM idempotency_keys WHERE team_id = $1 AND method = $2 AND path = $3 AND key = $4 AND state = 'in_flight'`,
    [k.teamId, k.method, k.path, k.key],
  );
}

export async function idempotencyDeleteExpired(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM idempotency_keys WHERE created_at < now() - interval '24 hours'`);
  return rowCount ?? 0;
}

// Data-subject requests (privacy_requests), the keyed hashes of erased addresses, and per-team
// retention settings (team_retention): migration 0053. A request row never holds the address.
import type { Queryable } from './db.js';

export type PrivacyKind = 'erasure' | 'export';
export type PrivacyStatus = 'queued' | 'in_progress' | 'completed' | 'failed';

export interface PrivacyRequestRow {
  id: string;
  team_id: string;
  kind: PrivacyKind;
  subject_hash: string;
  status: PrivacyStatus;
  counts: Record<string, number>;
  result_blob: string | null;
  result_bytes: string | null;
  /** export: a zip of the document and the attachments (migration 0060) */
  include_attachments: boolean;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
}

export async function privacyRequestInsert(
  db: Queryable,
  r: { id: string; teamId: string; kind: PrivacyKind; subjectHash: string; includeAttachments?: boolean },
): Promise<PrivacyRequestRow> {
  const { rows } = await db.query<PrivacyRequestRow>(
    `INSERT INTO privacy_requests (id, team_id, kind, subject_hash, include_attachments) VALUES ($1, $2, $3, $4, $5)
     RETURNING *`,
    [r.id, r.teamId, r.kind, r.subjectHash, r.includeAttachments ?? false],
  );
  return rows[0];
}

/** A request of the team by id (undefined: not the team's, or not a uuid). */
export async function privacyRequestFind(
  db: Queryable,
  teamId: string,
  kind: PrivacyKind,
  id: string,
): Promise<PrivacyRequestRow | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return undefined;
  const { rows } = await db.query<PrivacyRequestRow>(
    'SELECT * FROM privacy_requests WHERE team_id = $1 AND kind = $2 AND id = $3',
    [teamId, kind, id],
  );
  return rows[0];
}

/** A request by id alone (the job's and the signed download's view). */
export async function privacyRequestById(db: Queryable, id: string): Promise<PrivacyRequestRow | undefined> {
  const { rows } = await db.query<PrivacyRequestRow>('SELECT * FROM privacy_requests WHERE id = $1', [id]);
  return rows[0];
}

/** Marks the request in progress; returns the counts of an earlier, interrupted run ({} at first). */
export async function privacyRequestStart(db: Queryable, id: string): Promise<Record<string, number>> {
  const { rows } = await db.query<{ counts: Record<string, number> }>(
    `UPDATE privacy_requests SET status = 'in_progress', started_at = coalesce(started_at, now()) WHERE id = $1
     RETURNING counts`,
    [id],
  );
  return rows[0]?.counts ?? {};
}

/** Progress so far. */
export async function privacyRequestProgress(db: Queryable, id: string, counts: Record<string, number>): Promise<void> {
  await db.query('UPDATE privacy_requests SET counts = $2 WHERE id = $1', [id, JSON.stringify(counts)]);
}

export async function privacyRequestFinish(
  db: Queryable,
  id: string,
  end: { counts: Record<string, number>; resultBlob?: string; resultBytes?: number; error?: string },
): Promise<void> {
  await db.query(
    `UPDATE privacy_requests SET status = $2, counts = $3, result_blob = coalesce($4, result_blob),
       result_bytes = coalesce($5, result_bytes), error = $6, completed_at = now() WHERE id = $1`,
    [
      id,
      end.error ? 'failed' : 'completed',
      JSON.stringify(end.counts),
      end.resultBlob ?? null,
      end.resultBytes ?? null,
      end.error ?? null,
    ],
  );
}

/** Whether this keyed hash was erased in the team. */
export async function erasedAddressExists(db: Queryable, teamId: string, hash: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM erased_addresses WHERE team_id = $1 AND hash = $2', [teamId, hash]);
  return rows.length > 0;
}

export const RETENTION_KINDS = [
  'email_bodies',
  'received_emails',
  'tracking',
  'request_logs',
  'webhook_payloads',
  'events',
  'automation_runs',
] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];
export type TeamRetention = Record<RetentionKind, number | null>;

const col = (k: RetentionKind) => `${k}_days`;

/**
 * SQL for the days a row of team `teamCol` is kept: the team's setting, else `globalDays` (a
 * parameter such as $1). For purge statements (emails.ts, received-emails.ts, request-logs.ts,
 * webhook-messages.ts): the API keeps every setting at or under the global one.
 */
export const teamRetentionDaysSql = (kind: RetentionKind, teamCol: string, globalDays: string) =>
  `coalesce((SELECT tr.${col(kind)} FROM team_retention tr WHERE tr.team_id = ${teamCol}), ${globalDays})`;

/** SQL for the shortest days any team keeps `kind` (at most `globalDays`): an index-friendly outer bound. */
export const teamRetentionMinDaysSql = (kind: RetentionKind, globalDays: string) =>
  `least(${globalDays}, coalesce((SELECT min(tr.${col(kind)}) FROM team_retention tr), ${globalDays}))`;

/** The team's settings; every kind null when nothing was set. */
export async function teamRetentionGet(db: Queryable, teamId: string): Promise<TeamRetention> {
  const { rows } = await db.query(
    `SELECT ${RETENTION_KINDS.map(col).join(', ')} FROM team_retention WHERE team_id = $1`,
    [teamId],
  );
  return Object.fromEntries(RETENTION_KINDS.map((k) => [k, rows[0]?.[col(k)] ?? null])) as TeamRetention;
}

/** Sets the given kinds (null: back to the default), keeps the others. */
export async function teamRetentionSet(
  db: Queryable,
  teamId: string,
  change: Partial<TeamRetention>,
): Promise<TeamRetention> {
  const kinds = RETENTION_KINDS.filter((k) => k in change);
  if (kinds.length) {
    const params = kinds.map((k) => change[k] ?? null);
    const cols = kinds.map(col).join(', ');
    const values = kinds.map((_, i) => `$${i + 2}`).join(', ');
    const sets = kinds.map((k) => `${col(k)} = EXCLUDED.${col(k)}`).join(', ');
    await db.query(
      `INSERT INTO team_retention (team_id, ${cols}) VALUES ($1, ${values})
       ON CONFLICT (team_id) DO UPDATE SET ${sets}, updated_at = now()`,
      [teamId, ...params],
    );
  }
  return teamRetentionGet(db, teamId);
}

/** The team's newest requests of one kind (at most `limit`), newest first. */
export async function privacyRequestsList(
  db: Queryable,
  teamId: string,
  kind: PrivacyKind,
  limit: number,
): Promise<PrivacyRequestRow[]> {
  const { rows } = await db.query<PrivacyRequestRow>(
    'SELECT * FROM privacy_requests WHERE team_id = $1 AND kind = $2 ORDER BY created_at DESC, id DESC LIMIT $3',
    [teamId, kind, limit],
  );
  return rows;
}

// The reputation guard's tables (migration 0024): per-domain counters in 10-minute buckets (kept
// by a trigger on email_events, never written here) and the guard's state per domain. Reads are
// sums over at most 1,008 buckets of one domain; nothing here scans email_events. The trigger
// writes striped rows (0067: domain_reputation_count_slots, one row per session slot) that every
// read adds to the totals; rateCountsFold folds them into the totals once a minute.
import type { Queryable } from './db.js';

export type GuardState = 'ok' | 'warning' | 'paused';
export const BUCKET_MS = 10 * 60_000;

export interface Counts {
  delivered: number;
  bounced: number;
  hard_bounced: number;
  complained: number;
}
export const ZERO_COUNTS: Counts = { delivered: 0, bounced: 0, hard_bounced: 0, complained: 0 };

export interface ReputationRow {
  domain_id: string;
  team_id: string;
  state: GuardState;
  reason: string | null;
  since: Date;
  resumed_at: Date | null;
  resumed_by: string | null;
  baseline: (Counts & { bucket: string }) | null;
}

/** The start of the 10-minute bucket holding `at` (the trigger's date_bin). */
export const bucketOf = (at: Date) => new Date(Math.floor(at.getTime() / BUCKET_MS) * BUCKET_MS);

/** The domain counters matching `where`: the totals and the slots not folded yet (0067). */
const COUNTS = (where: string) =>
  `(SELECT domain_id, bucket, delivered, bounced, hard_bounced, complained FROM domain_reputation_counts WHERE ${where}
    UNION ALL SELECT domain_id, bucket, delivered, bounced, hard_bounced, complained FROM domain_reputation_count_slots WHERE ${where}) c`;

const SUMS = (
  filter: string,
) => `coalesce(sum(delivered) FILTER (WHERE ${filter}), 0)::int, coalesce(sum(bounced) FILTER (WHERE ${filter}), 0)::int,
  coalesce(sum(hard_bounced) FILTER (WHERE ${filter}), 0)::int, coalesce(sum(complained) FILTER (WHERE ${filter}), 0)::int`;

/** Sums of the domain's buckets from each start on (one query for several windows). */
export async function reputationSums(db: Queryable, domainId: string, starts: Date[]): Promise<Counts[]> {
  if (!starts.length) return [];
  const min = new Date(Math.min(...starts.map((s) => s.getTime())));
  const cols = starts.map((_, i) => `ARRAY[${SUMS(`bucket >= $${i + 3}`)}] AS w${i}`).join(', ');
  const { rows } = await db.query<Record<string, number[]>>(
    `SELECT ${cols} FROM ${COUNTS('domain_id = $1 AND bucket >= $2')}`,
    [domainId, min, ...starts],
  );
  return starts.map((_, i) => {
    const [delivered, bounced, hard_bounced, complained] = rows[0][`w${i}`];
    return { delivered, bounced, hard_bounced, complained };
  });
}

/** The counts of one bucket (the resume baseline). */
export async function reputationBucket(db: Queryable, domainId: string, bucket: Date): Promise<Counts> {
  const { rows } = await db.query<Counts>(
    `SELECT coalesce(sum(delivered), 0)::int AS delivered, coalesce(sum(bounced), 0)::int AS bounced,
       coalesce(sum(hard_bounced), 0)::int AS hard_bounced, coalesce(sum(complained), 0)::int AS complained
     FROM ${COUNTS('domain_id = $1 AND bucket = $2')}`,
    [domainId, bucket],
  );
  return rows[0] ?? ZERO_COUNTS;
}

/** Hourly sums from `from` on (hours without mail are absent). */
export async function reputationHourly(
  db: Queryable,
  domainId: string,
  from: Date,
): Promise<(Counts & { hour: Date })[]> {
  const { rows } = await db.query<Counts & { hour: Date }>(
    `SELECT date_trunc('hour', bucket) AS hour, sum(delivered)::int AS delivered, sum(bounced)::int AS bounced,
       sum(hard_bounced)::int AS hard_bounced, sum(complained)::int AS complained
     FROM ${COUNTS('domain_id = $1 AND bucket >= $2')} GROUP BY 1 ORDER BY 1`,
    [domainId, from],
  );
  return rows;
}

const STATE_COLUMNS = 'domain_id, team_id, state, reason, since, resumed_at, resumed_by, baseline';

export async function reputationFind(
  db: Queryable,
  domainId: string,
  forUpdate = false,
): Promise<ReputationRow | undefined> {
  const { rows } = await db.query<ReputationRow>(
    `SELECT ${STATE_COLUMNS} FROM domain_reputation WHERE domain_id = $1${forUpdate ? ' FOR UPDATE' : ''}`,
    [domainId],
  );
  return rows[0];
}

/** The row of the domain, created as `ok` when absent, locked for the caller's transaction. */
export async function reputationLock(db: Queryable, teamId: string, domainId: string): Promise<ReputationRow> {
  await db.query(
    'INSERT INTO domain_reputation (domain_id, team_id) VALUES ($1, $2) ON CONFLICT (domain_id) DO NOTHING',
    [domainId, teamId],
  );
  return (await reputationFind(db, domainId, true))!;
}

export async function reputationSet(
  db: Queryable,
  domainId: string,
  s: { state: GuardState; reason: string | null; since?: boolean },
): Promise<void> {
  await db.query(
    `UPDATE domain_reputation SET state = $2, reason = $3, since = CASE WHEN $4::boolean THEN now() ELSE since END, updated_at = now() WHERE domain_id = $1`,
    [domainId, s.state, s.reason, s.since ?? false],
  );
}

/** A person lifted the pause: the rates the guard judges start again from now. */
export async function reputationResume(
  db: Queryable,
  domainId: string,
  by: string,
  baseline: Counts & { bucket: string },
): Promise<void> {
  await db.query(
    `UPDATE domain_reputation SET state = 'ok', reason = NULL, since = now(), resumed_at = now(), resumed_by = $2, baseline = $3, updated_at = now()
     WHERE domain_id = $1`,
    [domainId, by, JSON.stringify(baseline)],
  );
}

/** The team's domains whose guard is not ok (the dashboard's banner). */
export async function reputationAlerts(
  db: Queryable,
  teamId: string,
): Promise<{ domain_id: string; name: string; state: GuardState; reason: string | null; since: Date }[]> {
  const { rows } = await db.query(
    `SELECT r.domain_id, d.name, r.state, r.reason, r.since FROM domain_reputation r JOIN domains d ON d.id = r.domain_id
     WHERE r.team_id = $1 AND r.state <> 'ok' ORDER BY r.state DESC, d.name`,
    [teamId],
  );
  return rows as never;
}

/** Domains with a warning, for the periodic re-look (a warning ends on its own as the windows slide). */
export async function reputationWarnings(
  db: Queryable,
  limit = 500,
): Promise<{ domain_id: string; team_id: string }[]> {
  const { rows } = await db.query<{ domain_id: string; team_id: string }>(
    "SELECT domain_id, team_id FROM domain_reputation WHERE state = 'warning' ORDER BY updated_at LIMIT $1",
    [limit],
  );
  return rows;
}

/** Every domain with mail in the last 7 days: its sums for the last hour and the 7 days, and its state (Prometheus). */
export async function reputationOverview(db: Queryable, hourStart: Date, weekStart: Date, limit = 200) {
  const { rows } = await db.query<{
    domain_id: string;
    name: string;
    state: GuardState | null;
    hour: number[];
    week: number[];
  }>(
    `SELECT c.domain_id, d.name, r.state, ARRAY[${SUMS('bucket >= $1')}] AS hour, ARRAY[${SUMS('true')}] AS week
     FROM ${COUNTS('bucket >= $2')} JOIN domains d ON d.id = c.domain_id LEFT JOIN domain_reputation r ON r.domain_id = c.domain_id
     GROUP BY c.domain_id, d.name, r.state ORDER BY d.name LIMIT $3`,
    [hourStart, weekStart, limit],
  );
  const counts = (a: number[]): Counts => ({ delivered: a[0], bounced: a[1], hard_bounced: a[2], complained: a[3] });
  return rows.map((r) => ({
    domain_id: r.domain_id,
    name: r.name,
    state: r.state ?? 'ok',
    hour: counts(r.hour),
    week: counts(r.week),
  }));
}

/**
 * The striped counters (0067) folded into the totals: every slot row of domains and broadcasts. One
 * statement per table: it locks the slot rows in key order (as the trigger takes its own), deletes
 * them and adds their sums to the totals in the same transaction, so a reader (totals and slots in
 * one snapshot) sees the same sums before and after it, and a trigger's upsert that waited on a
 * deleted row inserts it again. Returns the slot rows folded.
 */
export async function rateCountsFold(db: Queryable): Promise<number> {
  const a = await db.query<{ folded: number }>(
    `WITH l AS MATERIALIZED (SELECT domain_id, bucket, slot FROM domain_reputation_count_slots ORDER BY domain_id, bucket, slot FOR UPDATE),
     d AS (DELETE FROM domain_reputation_count_slots t USING l
       WHERE t.domain_id = l.domain_id AND t.bucket = l.bucket AND t.slot = l.slot RETURNING t.*),
     up AS (INSERT INTO domain_reputation_counts AS t (domain_id, bucket, team_id, delivered, bounced, hard_bounced, complained)
       SELECT domain_id, bucket, min(team_id::text)::uuid, sum(delivered), sum(bounced), sum(hard_bounced), sum(complained)
       FROM d GROUP BY domain_id, bucket ORDER BY domain_id, bucket
       ON CONFLICT (domain_id, bucket) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
         hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained)
     SELECT count(*)::int AS folded FROM d`,
  );
  const b = await db.query<{ folded: number }>(
    `WITH l AS MATERIALIZED (SELECT broadcast_id, slot FROM broadcast_rate_count_slots ORDER BY broadcast_id, slot FOR UPDATE),
     d AS (DELETE FROM broadcast_rate_count_slots t USING l WHERE t.broadcast_id = l.broadcast_id AND t.slot = l.slot RETURNING t.*),
     up AS (INSERT INTO broadcast_rate_counts AS t (broadcast_id, delivered, bounced, hard_bounced, complained, opened, clicked, unsubscribed)
       SELECT broadcast_id, sum(delivered), sum(bounced), sum(hard_bounced), sum(complained), sum(opened), sum(clicked), sum(unsubscribed)
       FROM d GROUP BY broadcast_id ORDER BY broadcast_id
       ON CONFLICT (broadcast_id) DO UPDATE SET delivered = t.delivered + EXCLUDED.delivered, bounced = t.bounced + EXCLUDED.bounced,
         hard_bounced = t.hard_bounced + EXCLUDED.hard_bounced, complained = t.complained + EXCLUDED.complained,
         opened = t.opened + EXCLUDED.opened, clicked = t.clicked + EXCLUDED.clicked, unsubscribed = t.unsubscribed + EXCLUDED.unsubscribed)
     SELECT count(*)::int AS folded FROM d`,
  );
  return a.rows[0].folded + b.rows[0].folded;
}

/** Retention: buckets older than 8 days are never read. */
export async function reputationCountsPurge(db: Queryable): Promise<number> {
  const { rowCount } = await db.query("DELETE FROM domain_reputation_counts WHERE bucket < now() - interval '8 days'");
  const slots = await db.query("DELETE FROM domain_reputation_count_slots WHERE bucket < now() - interval '8 days'");
  return (rowCount ?? 0) + (slots.rowCount ?? 0);
}

/** The team's broadcasts sending from this domain now (queued or sending), in id order: the guard pauses them, locking each in turn. */
export async function broadcastsSendingFromDomain(db: Queryable, teamId: string, domain: string): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM broadcasts WHERE team_id = $1 AND status IN ('queued', 'sending')
       AND lower(substring(from_header from '@([^@<>[:space:]]+)>?[[:space:]]*$')) = lower($2) ORDER BY id`,
    [teamId, domain],
  );
  return rows.map((r) => r.id);
}

/** The team's broadcasts the guard paused (by itself, or at the send path: their pause_reason names it): resumed with the domain. */
export async function broadcastsPausedByGuard(
  db: Queryable,
  teamId: string,
  domain: string,
  mark: string,
): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM broadcasts WHERE team_id = $1 AND status = 'paused' AND strpos(pause_reason, $3) > 0
       AND lower(substring(from_header from '@([^@<>[:space:]]+)>?[[:space:]]*$')) = lower($2)`,
    [teamId, domain, mark],
  );
  return rows.map((r) => r.id);
}

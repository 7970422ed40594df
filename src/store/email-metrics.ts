// Email metrics: event counts per (period, domain, type) over a date range, from an hourly rollup
// (closed hours, kept by a worker job) plus email_events for the rest. Live counts come from the
// index (team_id, type, created_at); bounce kinds and unique opens/clicks read only the rows of
// those event types. Every count is per recipient: the one email.sent event of an email counts
// its distinct recipients (to, cc, bcc), as its deliveries, bounces and failures do.
import type { Pool, Queryable } from './db.js';

export type Granularity = 'hour' | 'day' | 'week' | 'month';

export interface MetricsQuery {
  teamId: string;
  start: Date;
  end: Date;
  timezone: string;
  granularity: Granularity | null; // null: no period dimension
  byDomain: boolean;
  domainIds?: string[];
  emailIds?: string[];
  types: string[]; // event types to count
  detailTypes: string[]; // of those, the ones needing unique/bounce-kind counts
}

export interface MetricsCount {
  period: Date | null;
  domain_id: string | null;
  type: string;
  n: number;
  uniq?: number;
  permanent?: number;
  transient?: number;
  undetermined?: number;
}

/** SQL for an event's weight in a count: the email's distinct recipients for email.sent, else 1 (needs `e` joined). */
const RECIPIENTS = `(SELECT count(DISTINCT lower(a)) FROM unnest(e.to_addrs || e.cc_addrs || e.bcc_addrs) AS a)`;
const WEIGHT = `CASE WHEN ev.type = 'email.sent' THEN ${RECIPIENTS} ELSE 1 END`;

function parts(q: MetricsQuery, types: string[]) {
  const params: unknown[] = [q.teamId, types, q.start, q.end, q.granularity, q.timezone];
  const join = q.byDomain || Boolean(q.domainIds?.length) || types.includes('email.sent');
  let where = 'ev.team_id = $1 AND ev.type = ANY($2::text[]) AND ev.created_at >= $3 AND ev.created_at < $4';
  if (q.domainIds?.length) {
    params.push(q.domainIds);
    where += ` AND e.domain_id = ANY($${params.length}::uuid[])`;
  }
  if (q.emailIds?.length) {
    params.push(q.emailIds);
    where += ` AND ev.email_id = ANY($${params.length}::uuid[])`;
  }
  const select = `CASE WHEN $5::text IS NULL THEN NULL ELSE date_trunc($5::text, ev.created_at AT TIME ZONE $6::text) AT TIME ZONE $6::text END AS period,
    ${q.byDomain ? 'e.domain_id' : 'NULL::uuid'} AS domain_id, ev.type`;
  const from = `email_events ev${join ? ' JOIN emails e ON e.id = ev.email_id' : ''}`;
  return { params, where, select, from };
}

const ZERO = '00000000-0000-0000-0000-000000000000';
const HOUR = 3600_000;

/**
 * Counts over the range: whole hours already rolled up come from email_metrics_hourly, the edges
 * and the recent hours from email_events. (Unique counts are per hour in rolled-up hours.)
 */
export async function emailMetricsCounts(db: Queryable, q: MetricsQuery): Promise<MetricsCount[]> {
  const until = q.emailIds?.length ? null : await emailMetricsRolledUntil(db);
  const hs = new Date(Math.ceil(q.start.getTime() / HOUR) * HOUR);
  const he = until ? new Date(Math.min(Math.floor(q.end.getTime() / HOUR) * HOUR, until.getTime())) : hs;
  if (hs >= he) return liveCounts(db, q);
  const out = await rolledCounts(db, q, hs, he);
  if (q.start < hs) out.push(...(await liveCounts(db, { ...q, end: hs })));
  if (he < q.end) out.push(...(await liveCounts(db, { ...q, start: he })));
  return out;
}

async function rolledCounts(db: Queryable, q: MetricsQuery, start: Date, end: Date): Promise<MetricsCount[]> {
  const params: unknown[] = [
    q.teamId,
    [...new Set([...q.types, ...q.detailTypes])],
    start,
    end,
    q.granularity,
    q.timezone,
  ];
  let where = 'team_id = $1 AND type = ANY($2::text[]) AND hour >= $3 AND hour < $4';
  if (q.domainIds?.length) {
    params.push(q.domainIds);
    where += ` AND domain_id = ANY($${params.length}::uuid[])`;
  }
  const { rows } = await db.query<MetricsCount>(
    `SELECT CASE WHEN $5::text IS NULL THEN NULL ELSE date_trunc($5::text, hour AT TIME ZONE $6::text) AT TIME ZONE $6::text END AS period,
       ${q.byDomain ? `NULLIF(domain_id, '${ZERO}')` : 'NULL::uuid'} AS domain_id, type,
       sum(n)::int AS n, sum(uniq)::int AS uniq, sum(permanent)::int AS permanent, sum(transient)::int AS transient, sum(undetermined)::int AS undetermined
     FROM email_metrics_hourly WHERE ${where} GROUP BY 1, 2, 3`,
    params,
  );
  // A type counted only for its details (unique opens, bounce kinds) must not add to the plain count twice.
  return rows.map((r) => (q.types.includes(r.type) ? r : { ...r, n: 0 }));
}

export async function emailMetricsRolledUntil(db: Queryable): Promise<Date | null> {
  const { rows } = await db.query<{ until: Date }>('SELECT until FROM email_metrics_rollup');
  return rows[0]?.until ?? null;
}

/**
 * Worker job: rolls up closed hours (10 minutes of grace for late events, and the last rolled
 * hour is recomputed each time), at most `maxHours` per call in 24-hour chunks. Returns the
 * number of hours (re)computed. Safe in several workers at once (row lock on the state).
 */
export async function emailMetricsRollup(db: Pool, maxHours = 24 * 7): Promise<number> {
  let done = 0;
  while (done < maxHours) {
    const client = await db.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO email_metrics_rollup (until)
        SELECT coalesce(date_trunc('hour', (SELECT min(created_at) FROM email_events)), date_trunc('hour', now())) ON CONFLICT DO NOTHING`);
      const {
        rows: [s],
      } = await client.query<{ from: Date; to: Date }>(
        `SELECT r.until - interval '1 hour' AS from,
                least(date_trunc('hour', now() - interval '10 minutes'), r.until - interval '1 hour' + interval '24 hours') AS to
         FROM email_metrics_rollup r FOR UPDATE`,
      );
      const hours = Math.round((s.to.getTime() - s.from.getTime()) / HOUR);
      if (hours <= 1) {
        await client.query('COMMIT');
        break; // nothing closed since the last run (the last hour was recomputed then)
      }
      await client.query('DELETE FROM email_metrics_hourly WHERE hour >= $1 AND hour < $2', [s.from, s.to]);
      await client.query(
        `INSERT INTO email_metrics_hourly (team_id, hour, domain_id, type, n, uniq, permanent, transient, undetermined)
         SELECT ev.team_id, date_trunc('hour', ev.created_at), coalesce(e.domain_id, '${ZERO}'), ev.type, sum(${WEIGHT}), count(DISTINCT ev.email_id),
                count(*) FILTER (WHERE ev.data->'bounce'->>'type' = 'Permanent'), count(*) FILTER (WHERE ev.data->'bounce'->>'type' = 'Transient'),
                count(*) FILTER (WHERE ev.type = 'email.bounced' AND coalesce(ev.data->'bounce'->>'type', '') NOT IN ('Permanent', 'Transient'))
         FROM email_events ev JOIN emails e ON e.id = ev.email_id
         WHERE ev.created_at >= $1 AND ev.created_at < $2 GROUP BY 1, 2, 3, 4`,
        [s.from, s.to],
      );
      await client.query('UPDATE email_metrics_rollup SET until = $1', [s.to]);
      await client.query('COMMIT');
      done += hours;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
  return done;
}

/** Counts straight from email_events over [q.start, q.end). */
async function liveCounts(db: Queryable, q: MetricsQuery): Promise<MetricsCount[]> {
  const out: MetricsCount[] = [];
  if (q.types.length) {
    const c = parts(q, q.types);
    const n = q.types.includes('email.sent') ? `sum(${WEIGHT})::int` : 'count(*)::int';
    const { rows } = await db.query<MetricsCount>(
      `SELECT ${c.select}, ${n} AS n FROM ${c.from} WHERE ${c.where} GROUP BY 1, 2, 3`,
      c.params,
    );
    out.push(...rows);
  }
  if (q.detailTypes.length) {
    const c = parts(q, q.detailTypes);
    const { rows } = await db.query<MetricsCount>(
      `SELECT ${c.select}, 0 AS n, count(DISTINCT ev.email_id)::int AS uniq,
         count(*) FILTER (WHERE ev.data->'bounce'->>'type' = 'Permanent')::int AS permanent,
         count(*) FILTER (WHERE ev.data->'bounce'->>'type' = 'Transient')::int AS transient,
         count(*) FILTER (WHERE ev.type = 'email.bounced' AND coalesce(ev.data->'bounce'->>'type', '') NOT IN ('Permanent', 'Transient'))::int AS undetermined
       FROM ${c.from} WHERE ${c.where} GROUP BY 1, 2, 3`,
      c.params,
    );
    out.push(...rows);
  }
  return out;
}

/** Every period start in the range, in the time zone (so empty periods show as zeros). */
export async function metricsPeriods(
  db: Queryable,
  start: Date,
  end: Date,
  g: Granularity,
  timezone: string,
): Promise<Date[]> {
  const { rows } = await db.query<{ p: Date }>(
    `SELECT s AT TIME ZONE $4::text AS p FROM generate_series(
       date_trunc($3::text, $1::timestamptz AT TIME ZONE $4::text),
       date_trunc($3::text, ($2::timestamptz - interval '1 microsecond') AT TIME ZONE $4::text),
       ('1 ' || $3::text)::interval) AS s`,
    [start, end, g, timezone],
  );
  return rows.map((r) => r.p);
}

export async function domainNames(db: Queryable, teamId: string, ids: string[]): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const { rows } = await db.query<{ id: string; name: string }>(
    'SELECT id, name FROM domains WHERE team_id = $1 AND id = ANY($2::uuid[])',
    [teamId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}

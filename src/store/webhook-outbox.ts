// The webhook outbox: reading email_events past the dispatcher's cursor, turning them into one
// message per subscribed endpoint, and waking the per-endpoint delivery jobs. Also the sweep that
// repairs a delivery job lost to a wake-up race. Job kinds and all SQL on jobs are store/jobs.ts's
// (its key release and horizon too); the dispatcher is also queued by trigger webhooks_wake_dispatcher (0005).
import { prepared, type Queryable, type Tx } from './db.js';
import {
  JOBS_CHANNEL,
  WEBHOOK_DELIVER_JOB,
  WEBHOOK_DISPATCH_JOB,
  WEBHOOK_RETENTION_JOB,
  WEBHOOK_SWEEP_JOB,
  webhookDispatchJobPendingSql,
  webhookJobsWakeSql,
} from './jobs.js';

export { WEBHOOK_DELIVER_JOB, WEBHOOK_DISPATCH_JOB, WEBHOOK_RETENTION_JOB, WEBHOOK_SWEEP_JOB };

/** Wake-ups of endpoint delivery jobs: the SQL is the jobs table's (store/jobs.ts). */
const WAKE_ENDPOINTS = webhookJobsWakeSql;

export interface OutboxEvent {
  id: string;
  team_id: string;
  type: string;
  seq: string;
  txid: string;
  created_at: Date;
}

/**
 * The 64-bit ids of the transactions running in THIS database (pg_stat_activity.backend_xid is
 * 32-bit: widened by its signed distance to the snapshot's next xid). Not pg_snapshot_xmin: that is cluster-wide, and one long
 * transaction in another database on a shared server would hold webhooks back. Sessions of other
 * roles are invisible here without pg_read_all_stats; only Mailroom's own role writes events.
 */
const RUNNING_HERE = `
  SELECT s.n + ((a.backend_xid::text::bigint - s.n % 4294967296) % 4294967296 + 6442450944) % 4294967296 - 2147483648 AS x
  FROM pg_stat_activity a, (SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS n) s
  WHERE a.datname = current_database() AND a.backend_xid IS NOT NULL AND a.pid <> pg_backend_pid()`;

/**
 * Locks the cursor (dispatchers take turns) and reads the next events, in (txid, seq) order, of
 * transactions below a horizon that no running transaction of this database is under: such sets
 * never grow, so the cursor can pass them. The horizon comes from one statement (its snapshot's
 * xmax, taken before it reads pg_stat_activity) and the events from the next one, whose snapshot
 * sees every transaction the first found finished. Call inside a transaction.
 */
export async function webhookOutboxReadEmailEvents(tx: Tx, limit: number): Promise<OutboxEvent[]> {
  const {
    rows: [h],
  } = await tx.query<{ horizon: string; last_txid: string; last_seq: string }>(
    prepared(
      tx,
      'mr_webhook_outbox_cursor',
      `WITH c AS (SELECT last_txid, last_seq FROM webhook_cursors WHERE source = 'email_events' FOR UPDATE)
       SELECT least(pg_snapshot_xmax(pg_current_snapshot())::text::bigint, (SELECT min(x) FROM (${RUNNING_HERE}) r))::text AS horizon,
              c.last_txid::text AS last_txid, c.last_seq::text AS last_seq FROM c`,
      [],
    ),
  );
  if (!h) return [];
  // The cursor as parameters: a range scan of email_events_outbox that starts at the cursor. Joined
  // to webhook_cursors instead, the comparison was a join filter over every event from the first
  // (measured: 49 ms a pass with 80,000 events, growing with the table).
  const { rows } = await tx.query<OutboxEvent>(
    prepared(
      tx,
      'mr_webhook_outbox_read',
      `SELECT e.id, e.team_id, e.type, e.seq, e.txid::text AS txid, e.created_at
       FROM email_events e
       WHERE (e.txid, e.seq) > ($3::xid8, $4::bigint) AND e.txid < $2::xid8
       ORDER BY e.txid, e.seq LIMIT $1`,
      [limit, h.horizon, h.last_txid, h.last_seq],
    ),
  );
  return rows;
}

/** Whether events past the cursor wait for an older transaction to end (read them again soon). */
export async function webhookOutboxHasWaiting(db: Queryable): Promise<boolean> {
  const { rows } = await db.query(
    // The first event past the cursor, found by a walk of email_events_outbox that starts there
    // (LATERAL ... ORDER BY ... LIMIT 1): not a scan of the table from its oldest event.
    `SELECT EXISTS (SELECT 1 FROM webhook_cursors c CROSS JOIN LATERAL (
       SELECT 1 FROM email_events e WHERE (e.txid, e.seq) > (c.last_txid, c.last_seq) ORDER BY e.txid, e.seq LIMIT 1) x
     WHERE c.source = 'email_events') AS waiting`,
  );
  return rows[0].waiting;
}

/**
 * Before an endpoint is enabled while none is: the cursor jumps to the newest finished event
 * (none of those would reach any endpoint), so that a long quiet spell is not read through.
 */
export async function webhookCursorFastForwardIfIdle(db: Queryable): Promise<void> {
  await db.query(
    `WITH c AS (SELECT 1 FROM webhook_cursors WHERE source = 'email_events' FOR UPDATE),
     h AS (SELECT least(pg_snapshot_xmax(pg_current_snapshot())::text::bigint, (SELECT min(x) FROM (${RUNNING_HERE}) r))::text::xid8 AS horizon
           FROM c WHERE NOT EXISTS (SELECT 1 FROM webhooks WHERE status = 'enabled')),
     last AS (SELECT e.txid, e.seq FROM email_events e, h WHERE e.txid < h.horizon ORDER BY e.txid DESC, e.seq DESC LIMIT 1)
     UPDATE webhook_cursors w SET last_txid = last.txid, last_seq = last.seq FROM last
     WHERE w.source = 'email_events' AND (last.txid, last.seq) > (w.last_txid, w.last_seq)`,
  );
}

export interface NewMessage {
  id: string;
  webhook_id: string;
  team_id: string;
  event_id: string;
  event_seq: string;
  type: string;
  created_at: Date;
}

/** Inserts the messages, wakes their endpoints and moves the cursor, in one statement. */
export async function webhookMessagesInsertDispatched(
  tx: Tx,
  messages: NewMessage[],
  cursor: { txid: string; seq: string },
): Promise<void> {
  const endpoints = [...new Set(messages.map((m) => m.webhook_id))];
  await tx.query(
    prepared(
      tx,
      'mr_webhook_messages_insert',
      `WITH m AS (
         INSERT INTO webhook_messages (id, webhook_id, team_id, event_id, event_seq, type, status, next_attempt_at, created_at)
         SELECT id, webhook_id, team_id, event_id, event_seq, type, 'pending', now(), created_at
         FROM json_populate_recordset(NULL::webhook_messages, $1::json)),
       j AS (${WAKE_ENDPOINTS('$2')}),
       c AS (UPDATE webhook_cursors SET last_txid = $3::xid8, last_seq = $4 WHERE source = 'email_events')
       SELECT pg_notify($5, '${WEBHOOK_DELIVER_JOB}') WHERE cardinality($2::uuid[]) > 0`,
      [JSON.stringify(messages), endpoints, cursor.txid, cursor.seq, JOBS_CHANNEL],
    ),
  );
}

/** Wakes endpoints directly (replay; a finished delivery run leaving retries for later). */
export async function webhookEndpointsWake(db: Queryable, webhookIds: string[], at?: Date): Promise<void> {
  await db.query(
    prepared(
      db,
      'mr_webhook_endpoints_wake',
      `WITH j AS (${WAKE_ENDPOINTS('$1', 'coalesce($3::timestamptz, now())')}) SELECT pg_notify($2, '${WEBHOOK_DELIVER_JOB}')`,
      [webhookIds, JOBS_CHANNEL, at ?? null],
    ),
  );
}

/** Whether a newer dispatcher holds the key, and whether every transaction (here) below `horizon` ended. */
export async function webhookDispatchFinishState(
  db: Queryable,
  horizon: string,
): Promise<{ newer: boolean; passed: boolean }> {
  const { rows } = await db.query(
    `SELECT ${webhookDispatchJobPendingSql} AS newer,
            NOT EXISTS (SELECT 1 FROM (${RUNNING_HERE}) r WHERE r.x < $1::text::bigint) AS passed`,
    [horizon],
  );
  return rows[0];
}

/**
 * The sweep: every enabled endpoint with a message due now gets its delivery job (or has it pulled
 * forward). One index probe per endpoint. Returns how many endpoints were due.
 */
export async function webhookEndpointsWakeDue(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ ids: string[] }>(
    `SELECT coalesce(array_agg(w.id), '{}') AS ids FROM webhooks w
     WHERE w.status = 'enabled' AND EXISTS (
       SELECT 1 FROM webhook_messages m WHERE m.webhook_id = w.id AND m.status IN ('pending', 'attempting') AND m.next_attempt_at <= now())`,
  );
  const ids = rows[0].ids;
  if (ids.length) await webhookEndpointsWake(db, ids);
  return ids.length;
}

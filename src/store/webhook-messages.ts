// Webhook messages and their attempts: the delivery job's reads of due messages and its
// one-statement record of a batch of attempts, and the reads behind GET /webhooks/:id/events[/...] and replay.
import { teamRetentionDaysSql, teamRetentionMinDaysSql } from './privacy.js';
import { prepared, type Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface DueMessage {
  id: string;
  type: string;
  attempts: number; // including this one
  due_key: DueKey; // its place in the endpoint's order (the next read starts after it)
  event_id: string;
  event_created_at: Date | null; // null when the event is gone
  data_json: string | null; // the event's data as JSON text (parsed only when its body is not cached: webhooks/payload.ts)
}

/** A message's place in its endpoint's queue: when due (exact, as PostgreSQL's text), then the event's order. */
export interface DueKey {
  at: string;
  seq: string;
}

/**
 * Up to `limit` due messages of one endpoint past `after` (a run's own reads go on from its last
 * one), oldest first. A read writes nothing: the endpoint's delivery job is its only reader (job
 * key = endpoint, one run at a time), and an attempt is counted when it is recorded.
 */
export async function webhookMessagesReadDue(
  db: Queryable,
  webhookId: string,
  limit: number,
  after: DueKey | null,
): Promise<DueMessage[]> {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`due read limit ${limit}`);
  // Planned once per session, not at every call: PostgreSQL keeps a generic plan only when it costs
  // no more than the custom plans it tried, and with `LIMIT $n` (an unknown limit) or the start key
  // as plain parameters (a custom plan sees '-infinity') the custom ones were always cheaper: the
  // read was planned at every call, more CPU than running it (bench/webhooks/fanout.ts, sustained
  // phase: 4,907 plans in 5,481 calls). So the limit is written into the text (one named statement
  // per batch size: a run's batches are a few powers of two) and the start key comes through
  // sub-selects, which both plans estimate alike; it is still the index scan's bound.
  const { rows } = await db.query<Omit<DueMessage, 'due_key'> & { due_at: string; event_seq: string }>(
    prepared(
      db,
      `mr_webhook_messages_due_${limit}`,
      `SELECT m.id, m.type, m.attempts + 1 AS attempts, m.event_id, m.event_seq::text AS event_seq, m.next_attempt_at::text AS due_at,
              e.created_at AS event_created_at, e.data::text AS data_json
       FROM (SELECT id, type, attempts, event_id, event_seq, next_attempt_at FROM webhook_messages
             WHERE webhook_id = $1 AND status IN ('pending', 'attempting') AND next_attempt_at <= now()
               AND (next_attempt_at, event_seq) > ((SELECT coalesce($2::timestamptz, '-infinity')), (SELECT coalesce($3::bigint, -1)))
             ORDER BY next_attempt_at, event_seq LIMIT ${limit}) m
       LEFT JOIN email_events e ON e.id = m.event_id ORDER BY m.next_attempt_at, m.event_seq`,
      [webhookId, after?.at ?? null, after?.seq ?? null],
    ),
  );
  // Each message written out (not `{ ...m, due_key }`: a property added after a spread is slow on Node 20).
  return rows.map((m) => ({
    id: m.id,
    type: m.type,
    attempts: m.attempts,
    due_key: { at: m.due_at, seq: m.event_seq },
    event_id: m.event_id,
    event_created_at: m.event_created_at,
    data_json: m.data_json,
  }));
}

export interface AttemptRecord {
  message_id: string;
  attempt_id: string;
  status: 'success' | 'attempting' | 'failed'; // the message's status after this attempt
  next_attempt_at: string | null;
  sent_at: string;
  endpoint: string;
  request_headers: Record<string, string>;
  request_body: string;
  response_status: number | null;
  response_body: string | null;
  duration_ms: number;
  error_type: string | null;
  error_message: string | null;
}

/**
 * Writes a batch of attempts, their messages' new states (each attempt counted) and the endpoint's
 * failure state in one statement. `disable` (e.g. 'gone' after a 410) disables the endpoint; so does failing with no
 * success for `disableAfterMs`. Returns the endpoint's status afterwards.
 */
export async function webhookAttemptsRecord(
  db: Queryable,
  webhookId: string,
  teamId: string,
  attempts: AttemptRecord[],
  o: {
    anySuccess: boolean;
    firstFailureAt: string | null;
    disable: string | null;
    disableAfterMs: number;
  },
): Promise<{ status: string; disabled_now: boolean } | undefined> {
  const { rows } = await db.query(
    prepared(
      db,
      'mr_webhook_attempts_record',
      `WITH r AS (
         SELECT * FROM json_to_recordset($1::json) AS r (message_id text, attempt_id text, status text, next_attempt_at timestamptz, sent_at timestamptz,
           endpoint text, request_headers jsonb, request_body text, response_status int, response_body text, duration_ms int, error_type text, error_message text)),
       -- Attempts of the messages the update found (and locked): one deleted meanwhile (its endpoint
       -- deleted) gets none, as the foreign key made sure before 0083.
       m AS (
         UPDATE webhook_messages m SET status = r.status, next_attempt_at = r.next_attempt_at, last_attempt_at = r.sent_at, attempts = m.attempts + 1
         FROM r WHERE m.id = r.message_id RETURNING m.id),
       a AS (
         INSERT INTO webhook_attempts (id, message_id, team_id, endpoint, request_headers, request_body, response_status, response_body, duration_ms, error_type, error_message, created_at)
         SELECT r.attempt_id, r.message_id, $3, r.endpoint, r.request_headers, r.request_body, r.response_status, r.response_body, r.duration_ms, r.error_type, r.error_message, r.sent_at
         FROM r JOIN m ON m.id = r.message_id),
       old AS (SELECT status FROM webhooks WHERE id = $2),
       -- The endpoint's row only when its state changes (a failure starts or ends, it is disabled):
       -- not a new row version for every batch of an endpoint that keeps answering.
       u AS (
         UPDATE webhooks w SET
           failing_since = CASE WHEN $4 THEN NULL ELSE coalesce(w.failing_since, $5::timestamptz) END,
           status = CASE WHEN $6::text IS NOT NULL OR (NOT $4 AND coalesce(w.failing_since, $5::timestamptz) < now() - $7::float8 * interval '1 millisecond') THEN 'disabled' ELSE w.status END,
           disabled_reason = CASE WHEN w.status = 'disabled' THEN w.disabled_reason WHEN $6::text IS NOT NULL THEN $6
                                  WHEN NOT $4 AND coalesce(w.failing_since, $5::timestamptz) < now() - $7::float8 * interval '1 millisecond' THEN 'failing' ELSE NULL END
         FROM old WHERE w.id = $2 AND (
           ($4 AND w.failing_since IS NOT NULL) OR (NOT $4 AND w.failing_since IS NULL AND $5::timestamptz IS NOT NULL)
           OR (w.status <> 'disabled' AND ($6::text IS NOT NULL OR w.disabled_reason IS NOT NULL
               OR (NOT $4 AND coalesce(w.failing_since, $5::timestamptz) < now() - $7::float8 * interval '1 millisecond'))))
         RETURNING w.status, (old.status = 'enabled' AND w.status = 'disabled') AS disabled_now)
       SELECT coalesce(u.status, old.status) AS status, coalesce(u.disabled_now, false) AS disabled_now FROM old LEFT JOIN u ON true`,
      [JSON.stringify(attempts), webhookId, teamId, o.anySuccess, o.firstFailureAt, o.disable, o.disableAfterMs],
    ),
  );
  return rows[0];
}

/** An endpoint was disabled: what still waits for it fails (replay brings a message back). */
export async function webhookMessagesFailOutstanding(db: Queryable, webhookId: string): Promise<number> {
  const { rowCount } = await db.query(
    "UPDATE webhook_messages SET status = 'failed', next_attempt_at = NULL WHERE webhook_id = $1 AND status IN ('pending', 'attempting')",
    [webhookId],
  );
  return rowCount ?? 0;
}

/** When the endpoint's next message is due (its delivery job sleeps until then), if any waits. */
export async function webhookMessagesNextDue(db: Queryable, webhookId: string): Promise<Date | undefined> {
  const { rows } = await db.query<{ at: Date | null }>(
    prepared(
      db,
      'mr_webhook_messages_next_due',
      "SELECT min(next_attempt_at) AS at FROM webhook_messages WHERE webhook_id = $1 AND status IN ('pending', 'attempting')",
      [webhookId],
    ),
  );
  return rows[0].at ?? undefined;
}

const MESSAGE_COLUMNS = 'id, type, created_at::text AS created_at, status';

/** Narrows an endpoint's log: one delivery status and/or one event type (the list index still drives the walk). */
export interface WebhookMessageFilter {
  status?: string;
  type?: string;
}

export async function webhookMessageList(
  db: Queryable,
  teamId: string,
  webhookId: string,
  page: PageQuery,
  filter: WebhookMessageFilter = {},
): Promise<Page<{ id: string; type: string; created_at: string; status: string }>> {
  const where = ['webhook_id = $1'];
  const params: unknown[] = [webhookId];
  if (filter.status) where.push(`status = $${params.push(filter.status)}`);
  if (filter.type) where.push(`type = $${params.push(filter.type)}`);
  return paginate(db, {
    table: 'webhook_messages',
    columns: MESSAGE_COLUMNS,
    teamId,
    page,
    where: where.join(' AND '),
    params,
  });
}

export async function webhookMessageFind(db: Queryable, teamId: string, webhookId: string, id: string) {
  const { rows } = await db.query<{
    id: string;
    type: string;
    created_at: string;
    status: string;
    next_attempt_at: string | null;
    attempts: number;
    event_created_at: Date | null;
    data: Record<string, unknown> | null;
  }>(
    `SELECT m.id, m.type, m.created_at::text AS created_at, m.status, m.next_attempt_at::text AS next_attempt_at, m.attempts,
            e.created_at AS event_created_at, e.data
     FROM webhook_messages m LEFT JOIN email_events e ON e.id = m.event_id
     WHERE m.team_id = $1 AND m.webhook_id = $2 AND m.id = $3`,
    [teamId, webhookId, id],
  );
  return rows[0];
}

const ATTEMPT_COLUMNS = `id, coalesce(response_status, 0) AS http_status_code, coalesce(response_body, '') AS response, created_at::text AS sent_at,
  duration_ms, endpoint, CASE WHEN error_type IS NULL THEN NULL ELSE json_build_object('type', error_type, 'message', error_message) END AS error,
  request_headers, request_body`;

export async function webhookAttemptList(
  db: Queryable,
  teamId: string,
  messageId: string,
  page: PageQuery,
): Promise<Page<Record<string, unknown>>> {
  return paginate(db, {
    table: 'webhook_attempts',
    columns: ATTEMPT_COLUMNS,
    teamId,
    page,
    where: 'message_id = $1',
    params: [messageId],
  });
}

/** Queues a message again (same id), as a fresh run of the retry schedule. False when unknown. */
export async function webhookMessageReplay(
  db: Queryable,
  teamId: string,
  webhookId: string,
  id: string,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhook_messages SET status = 'pending', attempts = 0, next_attempt_at = now()
     WHERE team_id = $1 AND webhook_id = $2 AND id = $3`,
    [teamId, webhookId, id],
  );
  return Boolean(rowCount);
}

/** Retention: messages (and their attempts) older than `days`. */
export async function webhookMessagesDeleteOlderThan(db: Queryable, days: number, limit = 10_000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM webhook_messages WHERE id IN (
       SELECT id FROM webhook_messages t WHERE status IN ('success', 'failed')
         AND created_at < now() - make_interval(days => ${teamRetentionMinDaysSql('webhook_payloads', '$1')})
         AND created_at < now() - make_interval(days => ${teamRetentionDaysSql('webhook_payloads', 't.team_id', '$1')}) LIMIT $2)`,
    [days, limit],
  );
  return rowCount ?? 0;
}

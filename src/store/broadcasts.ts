// Broadcasts: their rows, the status moves (each one guarded by the status it leaves, so two
// requests racing cannot both win), and the expansion's one write, which advances the cursor
// only from where the caller read it. Every query is keyed by the team except the job's own.
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export type BroadcastStatus = 'draft' | 'scheduled' | 'queued' | 'sending' | 'sent' | 'canceled' | 'paused';

export interface BroadcastContent {
  name: string;
  segment_id: string | null;
  topic_id: string | null;
  from_header: string | null;
  subject: string | null;
  reply_to: string[] | null;
  preview_text: string | null;
  html: string | null;
  text_body: string | null;
  /** the visual editor's document the html was rendered from (null: raw HTML); checked by templates/document.ts */
  document: object | null;
}

export interface BroadcastRow extends BroadcastContent {
  id: string;
  team_id: string;
  status: BroadcastStatus;
  api_key_id: string | null;
  scheduled_at: string | null;
  sent_at: string | null;
  completed_at: string | null;
  paused_at: string | null;
  pause_reason: string | null;
  cursor_created_at: string | null;
  cursor_id: string | null;
  recipients: number;
  skipped_unsubscribed: number;
  skipped_topic: number;
  skipped_suppressed: number;
  created_at: string;
  updated_at: string;
}

const COLUMNS = `id, team_id, name, segment_id, topic_id, from_header, subject, reply_to, preview_text, html, text_body, document, status, api_key_id,
  scheduled_at::text AS scheduled_at, sent_at::text AS sent_at, completed_at::text AS completed_at, paused_at::text AS paused_at, pause_reason,
  cursor_created_at::text AS cursor_created_at, cursor_id, recipients, skipped_unsubscribed, skipped_topic, skipped_suppressed,
  created_at::text AS created_at, updated_at::text AS updated_at`;
const LIST_COLUMNS = `id, name, segment_id AS audience_id, segment_id, status, created_at::text AS created_at,
  scheduled_at::text AS scheduled_at, sent_at::text AS sent_at, topic_id`;
// Mailroom: each item's results from the running counters (0034, 0065) and their slots not folded
// yet (0067: at most 64 rows), read by primary key.
const LIST_STATS = `(SELECT json_build_object('sent', broadcasts.recipients, 'delivered', coalesce(sum(r.delivered), 0)::int,
    'opened', coalesce(sum(r.opened), 0)::int, 'clicked', coalesce(sum(r.clicked), 0)::int, 'unsubscribed', coalesce(sum(r.unsubscribed), 0)::int,
    'complained', coalesce(sum(r.complained), 0)::int, 'bounced', coalesce(sum(r.bounced), 0)::int)
  FROM (SELECT delivered, opened, clicked, unsubscribed, complained, bounced FROM broadcast_rate_counts WHERE broadcast_id = broadcasts.id
    UNION ALL SELECT delivered, opened, clicked, unsubscribed, complained, bounced FROM broadcast_rate_count_slots WHERE broadcast_id = broadcasts.id) r) AS stats`;

export async function broadcastInsert(
  db: Queryable,
  teamId: string,
  id: string,
  c: BroadcastContent,
  apiKeyId: string | null,
): Promise<void> {
  await db.query(
    `INSERT INTO broadcasts (id, team_id, name, segment_id, topic_id, from_header, subject, reply_to, preview_text, html, text_body, api_key_id, document)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
    [
      id,
      teamId,
      c.name,
      c.segment_id,
      c.topic_id,
      c.from_header,
      c.subject,
      c.reply_to,
      c.preview_text,
      c.html,
      c.text_body,
      apiKeyId,
      c.document === null ? null : JSON.stringify(c.document),
    ],
  );
}

export async function broadcastFind(db: Queryable, teamId: string, id: string): Promise<BroadcastRow | undefined> {
  const { rows } = await db.query<BroadcastRow>(`SELECT ${COLUMNS} FROM broadcasts WHERE team_id = $1 AND id = $2`, [
    teamId,
    id,
  ]);
  return rows[0];
}

/** For the expansion job, which knows only the id. */
export async function broadcastFindById(db: Queryable, id: string): Promise<BroadcastRow | undefined> {
  const { rows } = await db.query<BroadcastRow>(`SELECT ${COLUMNS} FROM broadcasts WHERE id = $1`, [id]);
  return rows[0];
}

export interface BroadcastListItem {
  id: string;
  name: string;
  audience_id: string | null;
  segment_id: string | null;
  status: BroadcastStatus;
  created_at: string;
  scheduled_at: string | null;
  sent_at: string | null;
  topic_id: string | null;
  /** Mailroom (`?stats=true`): emails created (sent) and how many were delivered, opened, clicked... (running counters) */
  stats?: {
    sent: number;
    delivered: number;
    opened: number;
    clicked: number;
    unsubscribed: number;
    complained: number;
    bounced: number;
  };
}

/** `withStats`: each item carries `stats` (Mailroom's `?stats=true`). */
export function broadcastList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  withStats = false,
): Promise<Page<BroadcastListItem>> {
  return paginate<BroadcastListItem>(db, {
    table: 'broadcasts',
    columns: withStats ? `${LIST_COLUMNS}, ${LIST_STATS}` : LIST_COLUMNS,
    teamId,
    page,
  });
}

/** Replaces a draft's content; undefined when there is no such broadcast, else its status before (the change applies only to a draft). */
export async function broadcastUpdateDraft(
  db: Queryable,
  teamId: string,
  id: string,
  c: BroadcastContent,
): Promise<BroadcastStatus | undefined> {
  const { rows } = await db.query<{ status: BroadcastStatus }>(
    `WITH u AS (
       UPDATE broadcasts SET name = $3, segment_id = $4, topic_id = $5, from_header = $6, subject = $7, reply_to = $8, preview_text = $9,
         html = $10, text_body = $11, document = $12, updated_at = now()
       WHERE team_id = $1 AND id = $2 AND status = 'draft' RETURNING status)
     SELECT status FROM u UNION ALL SELECT status FROM broadcasts WHERE team_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM u)`,
    [
      teamId,
      id,
      c.name,
      c.segment_id,
      c.topic_id,
      c.from_header,
      c.subject,
      c.reply_to,
      c.preview_text,
      c.html,
      c.text_body,
      c.document === null ? null : JSON.stringify(c.document),
    ],
  );
  return rows[0]?.status;
}

/**
 * Deletes a draft, or a scheduled broadcast not yet expanded (Resend: deleting a scheduled
 * broadcast cancels it; its job then finds no broadcast); returns its status before (deleted
 * only then), undefined when absent.
 */
export async function broadcastDeleteDraft(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<BroadcastStatus | undefined> {
  const { rows } = await db.query<{ status: BroadcastStatus }>(
    `WITH d AS (DELETE FROM broadcasts WHERE team_id = $1 AND id = $2
       AND (status = 'draft' OR (status = 'scheduled' AND sent_at IS NULL)) RETURNING status)
     SELECT status FROM d UNION ALL SELECT status FROM broadcasts WHERE team_id = $1 AND id = $2 AND NOT EXISTS (SELECT 1 FROM d)`,
    [teamId, id],
  );
  return rows[0]?.status;
}

/**
 * Moves a broadcast from one of `from` to `to` (with the columns a move sets); returns the row
 * after the move, or undefined when the broadcast was not in one of `from` (the caller reads why).
 */
export async function broadcastMove(
  db: Queryable,
  teamId: string,
  id: string,
  from: BroadcastStatus[],
  to: BroadcastStatus,
  set: { scheduledAt?: Date | null; pauseReason?: string | null } = {},
): Promise<BroadcastRow | undefined> {
  const { rows } = await db.query<BroadcastRow>(
    `UPDATE broadcasts SET status = $4, updated_at = now(),
       scheduled_at = CASE WHEN $5::boolean THEN $6::timestamptz ELSE scheduled_at END,
       paused_at = CASE WHEN $4 = 'paused' THEN now() ELSE NULL END,
       pause_reason = CASE WHEN $4 = 'paused' THEN $7 ELSE NULL END
     WHERE team_id = $1 AND id = $2 AND status = ANY($3::text[]) RETURNING ${COLUMNS}`,
    [teamId, id, from, to, set.scheduledAt !== undefined, set.scheduledAt ?? null, set.pauseReason ?? null],
  );
  return rows[0];
}

/**
 * Cancel before anything went out: a broadcast not yet expanded (no page committed: sent_at is
 * set by the first) goes back to being a draft, as in Resend, its schedule cleared. An expansion
 * racing it finds the status moved and rolls its page back (broadcastAdvance). Returns whether it moved.
 */
export async function broadcastCancelToDraft(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE broadcasts SET status = 'draft', scheduled_at = NULL, paused_at = NULL, pause_reason = NULL, updated_at = now()
     WHERE team_id = $1 AND id = $2 AND status IN ('scheduled', 'queued', 'paused') AND sent_at IS NULL`,
    [teamId, id],
  );
  return Boolean(rowCount);
}

export interface ExpansionStep {
  from: { created_at: string; id: string } | null; // the cursor the page was read after
  to: { created_at: string; id: string } | null; // the last contact of the page
  done: boolean;
  created: number;
  skippedUnsubscribed: number;
  skippedTopic: number;
  skippedSuppressed: number;
}

/**
 * The expansion's write, in the transaction that inserted the page's emails: advances the cursor
 * only if it is still where the page was read (else false: another run moved it, or the broadcast
 * was paused or canceled meanwhile, and the caller rolls back). It never waits for the broadcast's
 * row: a pause, resume or cancel holding it (and perhaps waiting for a row this page inserted, such
 * as the webhooks' wake-up job) makes it false, and the page is read again after the move.
 */
export async function broadcastAdvance(db: Queryable, id: string, s: ExpansionStep): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH l AS MATERIALIZED (SELECT id FROM broadcasts WHERE id = $1 FOR NO KEY UPDATE SKIP LOCKED)
     UPDATE broadcasts SET
       cursor_created_at = coalesce($3::timestamptz, cursor_created_at), cursor_id = coalesce($4::uuid, cursor_id),
       status = CASE WHEN $5::boolean THEN 'sent' ELSE 'sending' END, sent_at = coalesce(sent_at, now()),
       completed_at = CASE WHEN $5::boolean THEN now() ELSE NULL END,
       recipients = recipients + $6, skipped_unsubscribed = skipped_unsubscribed + $7, skipped_topic = skipped_topic + $8,
       skipped_suppressed = skipped_suppressed + $9, updated_at = now()
     WHERE id = (SELECT id FROM l) AND status IN ('queued', 'sending') AND cursor_created_at IS NOT DISTINCT FROM $2::timestamptz
       AND cursor_id IS NOT DISTINCT FROM $10::uuid`,
    [
      id,
      s.from?.created_at ?? null,
      s.to?.created_at ?? null,
      s.to?.id ?? null,
      s.done,
      s.created,
      s.skippedUnsubscribed,
      s.skippedTopic,
      s.skippedSuppressed,
      s.from?.id ?? null,
    ],
  );
  return Boolean(rowCount);
}

/** A scheduled broadcast whose time came: queued (no-op for any other status). */
export async function broadcastQueueDue(db: Queryable, id: string): Promise<void> {
  await db.query(`UPDATE broadcasts SET status = 'queued', updated_at = now() WHERE id = $1 AND status = 'scheduled'`, [
    id,
  ]);
}

/** The job's pause (rates over the threshold): only a broadcast still sending. */
export async function broadcastPauseAuto(db: Queryable, id: string, reason: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE broadcasts SET status = 'paused', paused_at = now(), pause_reason = $2, updated_at = now() WHERE id = $1 AND status IN ('queued', 'sending')`,
    [id, reason],
  );
  return Boolean(rowCount);
}

/**
 * How many of the broadcast's emails wait for delivery, counting at most `cap` (pacing): the copies
 * no delivery has taken yet (handed_over_at, emails_broadcast_unclaimed: no index holds last_event, 0082).
 */
export async function broadcastQueuedCount(db: Queryable, id: string, cap: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM emails WHERE broadcast_id = $1 AND handed_over_at IS NULL AND last_event = 'sent' LIMIT $2) q`,
    [id, cap],
  );
  return rows[0].n;
}

/**
 * Canceling a broadcast cancels its emails not yet handed over to a delivery (their delivery jobs
 * then end without sending); a copy a delivery has claimed (handed_over_at, set under the row lock
 * by emailsLoadForDelivery) is left to end as that delivery ends it, so that no email is both
 * delivered and canceled. Run after the broadcast's row is locked by its move; the emails are
 * locked in id order, as the hand-over and the delivery results lock them (issue 24: in any other
 * order, a cancel and a result sharing copies deadlocked).
 */
export async function broadcastEmailsCancelQueued(db: Queryable, teamId: string, id: string): Promise<number> {
  const { rowCount } = await db.query(
    `WITH l AS MATERIALIZED (
       SELECT id FROM emails WHERE broadcast_id = $2 AND team_id = $1 AND last_event = 'sent' AND handed_over_at IS NULL ORDER BY id FOR NO KEY UPDATE),
     c AS (UPDATE emails e SET last_event = 'canceled' FROM l WHERE e.id = l.id
                RETURNING e.id, e.team_id, e.created_at, e.from_header, e.to_addrs, e.subject, e.message_id, e.tags)
     INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
     SELECT gen_random_uuid(), c.id, c.team_id, 'email.canceled', NULL,
       jsonb_build_object('broadcast_id', $2::text, 'email_id', c.id, 'from', c.from_header, 'to', c.to_addrs, 'subject', c.subject,
         'message_id', c.message_id, 'created_at', to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), now()
     FROM c`,
    [teamId, id],
  );
  return rowCount ?? 0;
}

/**
 * The broadcast's page lock (an advisory transaction lock): the expansion's page commits take it in
 * page order, so the second waits for the first where PostgreSQL can see the wait (expand.job.ts).
 */
export async function broadcastPageLock(tx: Queryable, id: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext('broadcast-page:' || $1))`, [id]);
}

// The delivery job's two statements on emails (delivery/deliver.job.ts, inbound/return-path.ts):
// the load of a page of emails with their progress and suppressions (a broadcast copy handed over
// under its row lock), and the group-committed results (events, last_event, insights, the job's
// end). Split from store/emails.ts, which keeps the accept path, the reads and the single-event
// record; inserting into email_events fires the triggers listed there.
import { prepared, type Queryable } from './db.js';
import { leasedJobsEndSql } from './jobs.js';
import type { EventInsert } from './emails.js';

/** What the delivery job needs: the raw message, the sender's domain and its key, the event base. */
export interface EmailForDelivery {
  id: string;
  team_id: string;
  domain_id: string | null;
  message_id: string;
  from_header: string;
  subject: string;
  to_addrs: string[];
  headers: { name: string; value: string }[] | null;
  tags: { name: string; value: string }[];
  last_event: string;
  delayed_once: boolean;
  raw: Buffer | null;
  created_at: Date;
  cc_addrs: string[];
  bcc_addrs: string[];
  list_unsubscribe: boolean;
  list_id: string | null;
  broadcast_id: string | null;
  automation_id: string | null;
  /** a broadcast email's recipient values: its body is rendered at delivery (delivery/deferred.ts) */
  personalization: unknown;
  /** insights null: the compose rules have not run yet (then html and text_body are loaded for them, else null) */
  unanalyzed: boolean;
  source: string;
  reply_to: string[];
  html: string | null;
  text_body: string | null;
}

export interface DeliveryState {
  email: EmailForDelivery;
  /** recipients that already reached an end: delivered, bounced, suppressed, failed */
  done: Set<string>;
  /** deferred attempts so far (the most of any recipient) */
  deferrals: number;
  /** which of the asked recipients are on the team's suppression list, and why */
  suppressed: Map<string, string>;
}

/** One delivery attempt's question: this email, these recipients. */
export interface DeliveryLoad {
  emailId: string;
  recipients: string[];
  /** the recipients' keyed hashes, in order (lib/address-hash.ts): an erased address is held */
  hashes?: string[];
}

type LoadedRow = EmailForDelivery & {
  progress: { recipient: string | null; type: string }[] | null;
  suppressed: { email: string; origin: string }[] | null;
};

/**
 * Everything the delivery attempts of many emails must know, in one round trip (the worker
 * shares it across the deliveries it starts together): each email, its delivery progress (so a
 * re-run after a crash skips what was recorded), and its suppressed recipients. One entry per
 * load, in order; undefined for an email that no longer exists.
 *
 * A broadcast copy is also handed over here (handed_over_at, 0035): under its row lock, taken in
 * id order as the cancel and the recorder take theirs, it is claimed unless it was canceled, and
 * its last_event is read from the locked row, so `canceled` here means not claimed: do not send.
 * From then on the broadcast's cancel leaves it to this delivery (store/broadcasts.ts).
 */
/*
 * The delivery path's statements reach `emails` through `id = ANY (ARRAY(...))`: a primary-key
 * probe per email, whatever the statistics or the plan a session keeps (issue 27). Joined to the
 * JSON set instead (PostgreSQL assumes 100 rows of any JSON set), a plan made while the table was
 * a few thousand emails read all of it by hash join, and kept doing so as it grew; `broadcast_id
 * IS NOT NULL` let a partial broadcast index, empty by statistics taken before the broadcast,
 * walk every copy of the broadcast at each call (num_nonnulls() matches no index predicate).
 * test/store/delivery-plans.test.ts counts the scans.
 */
export async function emailsLoadForDelivery(
  db: Queryable,
  loads: DeliveryLoad[],
): Promise<(DeliveryState | undefined)[]> {
  const { rows } = await db.query<LoadedRow & { n: number }>(
    prepared(
      db,
      'mr_delivery_load',
      `WITH q AS (SELECT * FROM json_to_recordset($1::json) AS q (n int, email_id uuid, recipients json, hashes json)),
     claim AS MATERIALIZED (SELECT e.id, e.last_event FROM emails e WHERE e.id = ANY (ARRAY(SELECT email_id FROM q)) AND num_nonnulls(e.broadcast_id) = 1 ORDER BY e.id FOR NO KEY UPDATE),
     claimed AS (UPDATE emails e SET handed_over_at = now() FROM claim WHERE e.id = claim.id AND claim.last_event <> 'canceled' AND e.handed_over_at IS NULL)
     SELECT q.n, e.id, e.team_id, e.domain_id, e.message_id, e.from_header, e.subject, e.to_addrs, e.headers, e.tags, coalesce(claim.last_event, e.last_event) AS last_event, e.delayed_once, e.raw, e.created_at,
       e.cc_addrs, e.bcc_addrs, e.list_unsubscribe, e.list_id, e.broadcast_id, e.automation_id, e.personalization, e.insights IS NULL AS unanalyzed, e.source, e.reply_to,
       CASE WHEN e.insights IS NULL THEN e.html END AS html, CASE WHEN e.insights IS NULL THEN e.text_body END AS text_body,
       (SELECT json_agg(json_build_object('recipient', ev.recipient, 'type', ev.type)) FROM email_events ev
         WHERE ev.email_id = e.id AND ev.type IN ('email.delivered', 'email.bounced', 'email.suppressed', 'email.failed', 'email.delivery_delayed', 'email.delivery_attempt')) AS progress,
       (SELECT json_agg(json_build_object('email', h.email, 'origin', h.origin)) FROM (
          SELECT s.email, s.origin FROM suppressions s
          WHERE s.team_id = e.team_id AND s.email IN (SELECT lower(r) FROM json_array_elements_text(q.recipients) AS r)
          UNION ALL
          -- An erased address (privacy/erase.job.ts) survives only as its keyed hash.
          SELECT lower(r.v), 'erased' FROM json_array_elements_text(q.recipients) WITH ORDINALITY AS r (v, i)
            JOIN json_array_elements_text(coalesce(q.hashes, '[]')) WITH ORDINALITY AS h (v, i) ON h.i = r.i
          WHERE EXISTS (SELECT 1 FROM erased_addresses ea WHERE ea.team_id = e.team_id AND ea.hash = h.v)
          UNION ALL
          -- An email sent for a topic is held for a contact who left it (or all mail), at every attempt.
          SELECT c.email, 'unsubscribed' FROM contacts c JOIN topics t ON t.id = e.topic_id
            LEFT JOIN contact_topics ct ON ct.contact_id = c.id AND ct.topic_id = t.id
          WHERE e.topic_id IS NOT NULL AND c.team_id = e.team_id AND c.email IN (SELECT lower(r) FROM json_array_elements_text(q.recipients) AS r)
            AND (c.unsubscribed OR coalesce(ct.subscription, t.default_subscription) = 'opt_out')) AS h) AS suppressed
     FROM q JOIN emails e ON e.id = q.email_id LEFT JOIN claim ON claim.id = e.id
     WHERE e.id = ANY (ARRAY(SELECT email_id FROM q))`,
      [JSON.stringify(loads.map((l, n) => ({ n, email_id: l.emailId, recipients: l.recipients, hashes: l.hashes })))],
    ),
  );
  const out: (DeliveryState | undefined)[] = loads.map(() => undefined);
  for (const { n, progress, suppressed, ...email } of rows) out[n] = deliveryState(email, progress, suppressed);
  return out;
}

function deliveryState(
  email: EmailForDelivery,
  progress: LoadedRow['progress'],
  suppressed: LoadedRow['suppressed'],
): DeliveryState {
  const done = new Set<string>();
  const perRecipient = new Map<string, number>();
  for (const r of progress ?? []) {
    if (r.type === 'email.delivery_delayed' || r.type === 'email.delivery_attempt')
      perRecipient.set(r.recipient ?? '', (perRecipient.get(r.recipient ?? '') ?? 0) + 1);
    else if (r.recipient) done.add(r.recipient);
  }
  return {
    email,
    done,
    deferrals: Math.max(0, ...perRecipient.values()),
    suppressed: new Map((suppressed ?? []).map((s) => [s.email, s.origin])),
  };
}

export interface EventGroup {
  events: EventInsert[];
  lastEvent?: string;
  markDelayed?: boolean;
  /** an insight on the first delivery result that was not a success: added once per email (insights/) */
  insight?: { finding: unknown; onceAmong: string[] };
  /** the email's compose findings, computed by this delivery job: stored unless the email has some already */
  composed?: unknown[];
  /**
   * The delivery job whose last write this is: deleted in the same statement (still leased to
   * `workerId`), so the job's end costs no statement or commit of its own (issue 27). A kill -9
   * before the commit leaves both undone, after it both done: never results without the end.
   */
  endJob?: { id: string; workerId: string };
}

/** Records the events of many emails in one statement (delivery results are group-committed). */
export async function emailEventsInsertMany(db: Queryable, groups: EventGroup[]): Promise<void> {
  const events = groups.flatMap((g) => g.events);
  const ends = groups.flatMap((g) => (g.endJob ? [{ id: g.endJob.id, worker: g.endJob.workerId }] : []));
  if (!events.length && !ends.length) return;
  const updates = groups
    .filter((g) => g.events.length && (g.lastEvent || g.markDelayed || g.insight || g.composed))
    .map((g) => ({
      email_id: g.events[0].email_id,
      last_event: g.lastEvent ?? null,
      mark_delayed: g.markDelayed ?? false,
      insight: g.insight?.finding ?? null,
      insight_once: g.insight?.onceAmong ?? null,
      composed: g.composed ?? null,
    }));
  // The compose findings fill insights only while they are null (once per email, whichever job or
  // read got there first); the insight is then appended unless the email already has one of its
  // kind (another destination's job may have explained its own first reply) or was not analyzed
  // at all (insights null: MAILROOM_INSIGHTS=false). The rows are locked in id order first, as
  // the hand-over and a broadcast's cancel lock theirs: in any other order a cancel running
  // through the same copies deadlocked with it (issue 24). The jobs ended here (`endJob`) are
  // deleted once the update has run to its end (the count reads it all), so after it (emails,
  // then jobs: the order of the worker's own job end); a job no longer leased to its worker is
  // its taker's and left as it is (the worker logged the lost lease). Delivery jobs are never
  // re-armed (0037: only automations.event), but one would be left to the worker's lease, not
  // deleted. The events are inserted last, as before (a data-modifying CTE the query does not
  // read runs after it), and their statement triggers fire at the statement's end.
  await db.query(
    prepared(
      db,
      'mr_events_insert_many_end',
      `WITH ev AS (
       INSERT INTO email_events (id, email_id, team_id, type, recipient, data, detail, created_at)
       SELECT id, email_id, team_id, type, recipient, data, detail, created_at FROM json_populate_recordset(NULL::email_events, $1::json)),
     l AS MATERIALIZED (SELECT id FROM emails WHERE id = ANY (ARRAY(SELECT (x->>'email_id')::uuid FROM json_array_elements($2::json) x)) ORDER BY id FOR NO KEY UPDATE),
     up AS (
     UPDATE emails e SET last_event = coalesce(u.last_event, e.last_event), delayed_once = e.delayed_once OR u.mark_delayed,
       insights = CASE WHEN u.insight IS NULL OR coalesce(e.insights, u.composed) IS NULL
           OR EXISTS (SELECT 1 FROM jsonb_array_elements(coalesce(e.insights, u.composed)) f WHERE f->>'id' IN (SELECT jsonb_array_elements_text(u.insight_once)))
         THEN coalesce(e.insights, u.composed) ELSE coalesce(e.insights, u.composed) || jsonb_build_array(u.insight) END
     FROM json_to_recordset($2::json) AS u (email_id uuid, last_event text, mark_delayed boolean, insight jsonb, insight_once jsonb, composed jsonb), l
     WHERE e.id = u.email_id AND l.id = e.id AND e.last_event <> 'canceled' AND e.id = ANY (ARRAY(SELECT id FROM l))
     RETURNING e.id)
     SELECT ${leasedJobsEndSql('$3')} FROM (SELECT count(*) FROM up) AS updated`,
      [JSON.stringify(events), JSON.stringify(updates), JSON.stringify(ends)],
    ),
  );
}

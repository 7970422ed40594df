// Emails and their events. THE only file that inserts into `emails` (test/house/emails-insert.test.ts):
// the accept path (emails/accept.ts) is one statement per group of emails (a data-modifying CTE
// inserting the emails, their first events and their delivery jobs, and waking the workers), in
// two forms: whole emails (emailsInsertAccepted) and a broadcast's page (emailsInsertPage).
// DESIGN.md section 8 measured ~1,500/s for three separate inserts per transaction.
// Inserting into email_events fires three statement-level triggers other modules depend on:
// email_events_wake_webhooks (0005, wakes the webhook dispatcher: webhooks/dispatch.job.ts),
// email_events_count_rates (0034, which replaced 0024's: the counters of reputation/guard.ts and
// the broadcast auto-pause), email_events_automations (0025: queues email events for
// automations/event.job.ts).
import { teamRetentionDaysSql, teamRetentionMinDaysSql } from './privacy.js';
import { prepared, type Queryable } from './db.js';
import {
  DELIVER_BATCH_JOB,
  DELIVER_JOB,
  deliverBatchJobsSql,
  deliverJobsDeleteScheduledSql,
  deliverJobsInsertSql,
  deliverJobsRescheduleScheduledSql,
  JOBS_CHANNEL,
} from './jobs.js';
import { paginate, type Page, type PageQuery } from './paginate.js';
import { emailFilterSql, isUnresulted, RECENT_UNRESULTED, type EmailFilters } from './email-filters.js';

export { DELIVER_JOB };

export interface DeliverPayload {
  email_id: string;
  team_id: string;
  domain: string; // recipient domain: one SMTP transaction carries all its recipients
  recipients: string[];
  scheduled?: true; // the email was scheduled: its jobs are found by email (cancel, reschedule)
  broadcast_id?: string; // a broadcast copy's retry: its jobs are found by broadcast (pause, resume)
}

/**
 * A run of a broadcast's copies to one destination domain, delivered one after another by one job
 * (store/jobs.ts deliverBatchJobsSql): [email id, recipient] pairs, each a one-recipient email.
 */
export interface DeliverBatchPayload {
  team_id: string;
  domain: string;
  broadcast_id: string;
  emails: [string, string][];
}

export interface EventInsert {
  id: string;
  email_id: string;
  team_id: string;
  type: string;
  recipient: string | null;
  data: unknown;
  detail?: unknown;
  created_at: string; // ISO
}

export interface AcceptedEmail {
  row: {
    id: string;
    team_id: string;
    domain_id: string;
    api_key_id: string | null;
    source: string;
    message_id: string;
    from_header: string;
    to_addrs: string[];
    cc_addrs: string[];
    bcc_addrs: string[];
    reply_to: string[];
    subject: string;
    html: string | null;
    text_body: string | null;
    headers: { name: string; value: string }[] | null;
    tags: { name: string; value: string }[];
    scheduled_at: string | null;
    last_event: string;
    created_at: string;
    topic_id?: string | null;
    /** list mail (topic, broadcast, automation): one-click unsubscribe headers per recipient at delivery */
    list_unsubscribe?: boolean;
    list_id?: string | null;
    /** the broadcast this email was sent for */
    broadcast_id?: string | null;
    /** the automation this email was sent for */
    automation_id?: string | null;
    /** deliverability findings (insights/): null when not analyzed */
    insights?: unknown[] | null;
  };
  raw: Buffer;
  event: EventInsert;
  jobs: { payload: DeliverPayload; run_at: string; region: string; priority?: number }[];
}

/** An idempotency key completed by the same statement that commits the emails it answered for. */
export interface IdempotencyCompletion {
  team_id: string;
  method: string;
  path: string;
  key: string;
  response_status: number;
  response_body: unknown;
}

/**
 * The accept statement's text (emailsInsertAccepted), prepared once per session: PostgreSQL planned
 * its five-part CTE at every call. The bodies (`raw`) travel as ONE binary bytea parameter, cut
 * into rows by offset and length: as a `bytea[]` parameter node-pg wrote each body as a hex string
 * inside an array literal (twice its size, built by string concatenation, flattened and measured
 * again to write it: issue 27 measured ~15% of the API's CPU in the batch leg there) and
 * PostgreSQL parsed that literal back. The rows travel as jsonb, parsed once: as json they were
 * lexed by json_in, again by json_populate_recordset, and each jsonb field a third time (issue 27:
 * 4-13% of the statement's PostgreSQL CPU for a 20 KB email, test/store/accept-bodies.test.ts
 * checks that every field is stored as before).
 */
const ACCEPT_SQL = `WITH e AS (
       INSERT INTO emails (id, team_id, domain_id, api_key_id, source, message_id, from_header, to_addrs, cc_addrs, bcc_addrs, reply_to,
                           subject, html, text_body, headers, tags, scheduled_at, last_event, raw, created_at, topic_id, list_unsubscribe, list_id, broadcast_id, insights, automation_id)
       SELECT r.id, r.team_id, r.domain_id, r.api_key_id, r.source, r.message_id, r.from_header, r.to_addrs, r.cc_addrs, r.bcc_addrs, r.reply_to,
              r.subject, r.html, r.text_body, r.headers, r.tags, r.scheduled_at, r.last_event, substring($2::bytea FROM b.start FOR b.len), r.created_at, r.topic_id, coalesce(r.list_unsubscribe, false), r.list_id, r.broadcast_id, r.insights, r.automation_id
       FROM jsonb_populate_recordset(NULL::emails, $1::jsonb) WITH ORDINALITY AS r
       JOIN unnest(string_to_array($7, ',')::int[], string_to_array($8, ',')::int[]) WITH ORDINALITY AS b (start, len, n) ON b.n = r.ordinality
       RETURNING id),
     ev AS (
       INSERT INTO email_events (id, email_id, team_id, type, recipient, data, detail, created_at)
       SELECT id, email_id, team_id, type, recipient, data, detail, created_at FROM jsonb_populate_recordset(NULL::email_events, $3::jsonb)),
     j AS (
${deliverJobsInsertSql('$4')}),
     k AS (
       UPDATE idempotency_keys ik SET state = 'done', response_status = c.response_status, response_body = c.response_body
       FROM jsonb_to_recordset($6::jsonb) AS c (team_id uuid, method text, path text, key text, response_status int, response_body jsonb)
       WHERE ik.team_id = c.team_id AND ik.method = c.method AND ik.path = c.path AND ik.key = c.key)
     SELECT (SELECT count(*) FROM e) AS n, pg_notify($5, '${DELIVER_JOB}')`;

/**
 * Inserts accepted emails with their first event and delivery jobs, and completes their
 * idempotency keys, atomically, in one round trip.
 */
export async function emailsInsertAccepted(
  db: Queryable,
  emails: AcceptedEmail[],
  completions: IdempotencyCompletion[] = [],
): Promise<void> {
  if (!emails.length && !completions.length) return;
  const rows: AcceptedEmail['row'][] = [];
  const events: EventInsert[] = [];
  const jobs: AcceptedEmail['jobs'] = [];
  const raws: Buffer[] = [];
  const starts: number[] = [];
  const lens: number[] = [];
  let at = 1; // substring() counts from 1
  for (const e of emails) {
    rows.push(e.row);
    events.push(e.event);
    for (const j of e.jobs) jobs.push(j);
    raws.push(e.raw);
    starts.push(at);
    lens.push(e.raw.length);
    at += e.raw.length;
  }
  await db.query(
    prepared(db, 'emails_insert_accepted', ACCEPT_SQL, [
      JSON.stringify(rows),
      raws.length === 1 ? raws[0] : Buffer.concat(raws, at - 1),
      JSON.stringify(events),
      JSON.stringify(jobs),
      JOBS_CHANNEL,
      JSON.stringify(completions),
      // as text: a JS array is written by node-pg as an array literal built element by element
      starts.join(','),
      lens.join(','),
    ]),
  );
}

/**
 * A page of a broadcast's emails (emails/accept.ts EmailAcceptor.page): they share everything but
 * id, Message-ID, address, subject, personalization values and their `email.sent` event (built in
 * TypeScript by the one event builder, events/email-events.ts), so the page travels as a few
 * parallel arrays instead of one JSON row per email, and keeps no body (the broadcast holds the
 * message: delivery/deferred.ts). Its copies are delivered in runs of DELIVERY_BATCH per destination
 * domain, one job each (store/jobs.ts deliverBatchJobsSql).
 */
export interface EmailPage {
  team_id: string;
  domain_id: string;
  api_key_id: string | null;
  from_header: string;
  reply_to: string[];
  headers: { name: string; value: string }[] | null;
  topic_id: string | null;
  list_id: string;
  broadcast_id: string;
  /** ISO: the emails' created_at, when their delivery jobs are due (jobs.priority puts them behind transactional mail) */
  created_at: string;
  region: string;
  ids: string[];
  message_ids: string[];
  addresses: string[];
  recipient_domains: string[];
  subjects: string[];
  personalizations: unknown[];
  /** each email's first event (same order as ids; its data travels as one JSON array) */
  events: EventInsert[];
}

/** Inserts a page of a broadcast's emails with their first events and delivery jobs, in one statement. */
export async function emailsInsertPage(db: Queryable, p: EmailPage): Promise<void> {
  if (!p.ids.length) return;
  await db.query(
    `WITH r AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[], $17::uuid[]) WITH ORDINALITY
                 AS r (id, message_id, address, rcpt_domain, subject, p, event_id, n)),
     e AS (
       INSERT INTO emails (id, team_id, domain_id, api_key_id, source, message_id, from_header, to_addrs, reply_to, subject, headers, last_event, created_at,
                           topic_id, list_unsubscribe, list_id, broadcast_id, personalization)
       SELECT r.id, $7, $8, $9, 'broadcast', r.message_id, $10, ARRAY[r.address], $11::text[], r.subject, $12::jsonb, 'sent', $13::timestamptz,
              $14::uuid, true, $15, $16::uuid, r.p FROM r),
     ev AS (
       INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
       SELECT r.event_id, r.id, $7, 'email.sent', NULL, d.data, $13::timestamptz FROM r JOIN jsonb_array_elements($18::jsonb) WITH ORDINALITY AS d (data, n) ON d.n = r.n),
     j AS (${deliverBatchJobsSql('r', '$7', '$16', '$13', '$19')})
     SELECT pg_notify($20, '${DELIVER_BATCH_JOB}')`,
    [
      p.ids,
      p.message_ids,
      p.addresses,
      p.recipient_domains,
      p.subjects,
      p.personalizations.map((x) => JSON.stringify(x)),
      p.team_id,
      p.domain_id,
      p.api_key_id,
      p.from_header,
      p.reply_to,
      p.headers === null ? null : JSON.stringify(p.headers),
      p.created_at,
      p.topic_id,
      p.list_id,
      p.broadcast_id,
      p.events.map((e) => e.id),
      JSON.stringify(p.events.map((e) => e.data)),
      p.region,
      JOBS_CHANNEL,
    ],
  );
}

const RECORD_COLUMNS = `id, message_id, to_addrs AS "to", from_header AS "from", created_at::text AS created_at, subject,
  bcc_addrs AS bcc, cc_addrs AS cc, reply_to, last_event, scheduled_at::text AS scheduled_at`;

export interface EmailListItem {
  id: string;
  message_id: string;
  to: string[];
  from: string;
  created_at: string;
  subject: string;
  bcc: string[];
  cc: string[];
  reply_to: string[];
  last_event: string;
  scheduled_at: string | null;
}
export interface EmailRecord extends EmailListItem {
  html: string | null;
  text: string | null;
  tags: { name: string; value: string }[];
}

/** An email whose body is rendered on demand (a broadcast's: delivery/deferred.ts): what the renderer reads. */
export interface DeferredEmail {
  id: string;
  team_id: string;
  domain_id: string | null;
  broadcast_id: string | null;
  personalization: unknown;
  message_id: string;
  to_addrs: string[];
  created_at: Date | string;
}

/** A broadcast email's body is rendered on demand (delivery/deferred.ts): what the renderer needs, else null. */
const DEFERRED_COLUMN = `CASE WHEN personalization IS NOT NULL AND broadcast_id IS NOT NULL THEN json_build_object('id', id, 'team_id', team_id,
  'domain_id', domain_id, 'broadcast_id', broadcast_id, 'personalization', personalization, 'message_id', message_id, 'to_addrs', to_addrs,
  'created_at', created_at) END AS deferred`;

export async function emailFindById(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<(EmailRecord & { deferred: DeferredEmail | null }) | undefined> {
  const { rows } = await db.query<EmailRecord & { deferred: DeferredEmail | null }>(
    `SELECT ${RECORD_COLUMNS}, html, text_body AS text, tags, topic_id, ${DEFERRED_COLUMN} FROM emails WHERE team_id = $1 AND id = $2`,
    [teamId, id],
  );
  return rows[0];
}

/** The raw MIME of a team's email: undefined when there is no such email, raw null once purged (or rendered on demand: deferred). */
export async function emailRawFind(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<{ raw: Buffer | null; deferred: DeferredEmail | null } | undefined> {
  const { rows } = await db.query<{ raw: Buffer | null; deferred: DeferredEmail | null }>(
    `SELECT raw, ${DEFERRED_COLUMN} FROM emails WHERE team_id = $1 AND id = $2`,
    [teamId, id],
  );
  return rows[0];
}

/** The same for a signed public link (share page, attachment download): the signature names the email, not the key. */
export async function emailRawById(
  db: Queryable,
  id: string,
): Promise<{ raw: Buffer | null; team_id: string; deferred: DeferredEmail | null } | undefined> {
  const { rows } = await db.query<{ raw: Buffer | null; team_id: string; deferred: DeferredEmail | null }>(
    `SELECT raw, team_id, ${DEFERRED_COLUMN} FROM emails WHERE id = $1`,
    [id],
  );
  return rows[0];
}

export async function emailList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  filters: EmailFilters = {},
): Promise<Page<EmailListItem>> {
  const f = emailFilterSql(filters, teamId); // dashboard filters (email-filters.ts); none = the plain list
  return paginate<EmailListItem>(db, {
    table: 'emails',
    columns: RECORD_COLUMNS,
    teamId,
    page,
    where: f?.where,
    params: f?.params,
  });
}

/** How many of the team's emails match the filters, counted up to `cap` (then `capped`): a number for the dashboard. */
export async function emailCount(
  db: Queryable,
  teamId: string,
  filters: EmailFilters,
  cap: number,
): Promise<{ count: number; capped: boolean }> {
  // A status with no index (email-filters.ts, RECENT_UNRESULTED) is counted among the team's newest
  // emails read in the list's order, whatever plan a bound alone would get.
  const recentOnly = isUnresulted(filters.status);
  const f = emailFilterSql(filters, teamId, recentOnly);
  const where = f ? ` AND (${f.where.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + 1}`)})` : '';
  const params = [teamId, ...(f?.params ?? []), cap + 1];
  const from = recentOnly
    ? `(SELECT * FROM emails WHERE team_id = $1 ORDER BY created_at DESC, id DESC LIMIT ${RECENT_UNRESULTED}) emails`
    : 'emails';
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM ${from} WHERE team_id = $1${where} LIMIT $${params.length}) s`,
    params,
  );
  return { count: Math.min(rows[0].n, cap), capped: rows[0].n > cap };
}

export async function emailEventsList(db: Queryable, teamId: string, emailId: string) {
  const { rows } = await db.query(
    `SELECT id, type, recipient, data, detail, created_at::text AS created_at FROM email_events WHERE team_id = $1 AND email_id = $2 ORDER BY created_at, id`,
    [teamId, emailId],
  );
  return rows as {
    id: string;
    type: string;
    recipient: string | null;
    data: unknown;
    detail: unknown;
    created_at: string;
  }[];
}

/** "type recipient" of the email's events of these types (to record a repeated report once). */
export async function emailEventKeys(db: Queryable, emailId: string, types: string[]): Promise<Set<string>> {
  const { rows } = await db.query<{ k: string }>(
    `SELECT type || ' ' || coalesce(recipient, '') AS k FROM email_events WHERE email_id = $1 AND type = ANY($2::text[])`,
    [emailId, types],
  );
  return new Set(rows.map((r) => r.k));
}

/**
 * Records events (one statement) and, when `lastEvent` is given, moves the email's last_event to
 * it, unless the email was canceled (later delivery events must not hide that).
 */
export async function emailEventsInsert(
  db: Queryable,
  events: EventInsert[],
  opts: { lastEvent?: string; markDelayed?: boolean } = {},
): Promise<void> {
  if (!events.length) return;
  await db.query(
    `WITH ev AS (
       INSERT INTO email_events (id, email_id, team_id, type, recipient, data, detail, created_at)
       SELECT id, email_id, team_id, type, recipient, data, detail, created_at FROM json_populate_recordset(NULL::email_events, $1::json))
     UPDATE emails SET last_event = coalesce($3::text, last_event), delayed_once = delayed_once OR $4::boolean
     WHERE id = $2 AND last_event <> 'canceled' AND ($3::text IS NOT NULL OR $4::boolean)`,
    [JSON.stringify(events), events[0].email_id, opts.lastEvent ?? null, opts.markDelayed ?? false],
  );
}

/** Reschedules a scheduled email and its pending delivery jobs; false when it is not scheduled. */
export async function emailReschedule(db: Queryable, teamId: string, id: string, at: Date): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH e AS (UPDATE emails SET scheduled_at = $3 WHERE team_id = $1 AND id = $2 AND last_event = 'scheduled' RETURNING id),
     j AS (${deliverJobsRescheduleScheduledSql('$2', '$3', 'e')})
     SELECT 1 FROM e`,
    [teamId, id, at],
  );
  return Boolean(rowCount);
}

/** Cancels a scheduled email: its jobs are deleted and its last event becomes `canceled`. */
export async function emailCancel(db: Queryable, teamId: string, id: string, event: EventInsert): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH e AS (UPDATE emails SET last_event = 'canceled' WHERE team_id = $1 AND id = $2 AND last_event = 'scheduled' RETURNING id),
     j AS (${deliverJobsDeleteScheduledSql('$2', 'e')}),
     ev AS (INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
            SELECT $3, $2, $1, 'email.canceled', NULL, $4::jsonb, now() FROM e)
     SELECT 1 FROM e`,
    [teamId, id, event.id, JSON.stringify(event.data)],
  );
  return Boolean(rowCount);
}

export async function emailLastEvent(db: Queryable, teamId: string, id: string): Promise<string | undefined> {
  const { rows } = await db.query<{ last_event: string }>(
    'SELECT last_event FROM emails WHERE team_id = $1 AND id = $2',
    [teamId, id],
  );
  return rows[0]?.last_event;
}

/** Retention: drops raw bodies older than `days` (metadata and events stay). */
export async function emailsPurgeRaw(db: Queryable, days: number, limit = 1000): Promise<number> {
  // A team's own setting (team_retention.email_bodies_days, at most `days`) drops the bodies too.
  const { rowCount } = await db.query(
    `UPDATE emails e SET raw = NULL, raw_purged_at = now(),
       html = CASE WHEN o.own THEN NULL ELSE e.html END, text_body = CASE WHEN o.own THEN NULL ELSE e.text_body END
     FROM (SELECT id, EXISTS (SELECT 1 FROM team_retention tr
               WHERE tr.team_id = t.team_id AND tr.email_bodies_days IS NOT NULL) AS own
           FROM emails t WHERE raw IS NOT NULL
             AND created_at < now() - make_interval(days => ${teamRetentionMinDaysSql('email_bodies', '$1')})
             AND created_at < now() - make_interval(days => ${teamRetentionDaysSql('email_bodies', 't.team_id', '$1')})
           LIMIT $2) o
     WHERE e.id = o.id`,
    [days, limit],
  );
  return rowCount ?? 0;
}

/** An email as later events (async bounces, complaints) need it; by id, or by Message-ID within a team's recent mail. */
export interface EmailForReport {
  id: string;
  team_id: string;
  domain_id: string | null;
  created_at: Date;
  from_header: string;
  to_addrs: string[];
  cc_addrs: string[];
  bcc_addrs: string[];
  subject: string;
  message_id: string;
  tags: { name: string; value: string }[];
  headers: { name: string; value: string }[] | null;
  delayed_once: boolean;
  last_event: string;
  broadcast_id: string | null;
  automation_id: string | null;
}
const REPORT_COLUMNS =
  'id, team_id, domain_id, created_at, from_header, to_addrs, cc_addrs, bcc_addrs, subject, message_id, tags, headers, delayed_once, last_event, broadcast_id, automation_id';

export async function emailFindForReport(
  db: Queryable,
  by: { id: string } | { teamId: string; messageId: string },
): Promise<EmailForReport | undefined> {
  // No index on message_id (it would cost every accepted email an index update): the lookup by
  // Message-ID, needed only for complaints without a VERP address, walks the team's last 45 days.
  const { rows } =
    'id' in by
      ? await db.query<EmailForReport>(`SELECT ${REPORT_COLUMNS} FROM emails WHERE id = $1`, [by.id])
      : await db.query<EmailForReport>(
          `SELECT ${REPORT_COLUMNS} FROM emails WHERE team_id = $1 AND message_id = $2 AND created_at > now() - interval '45 days' ORDER BY created_at DESC LIMIT 1`,
          [by.teamId, by.messageId],
        );
  return rows[0];
}

// The statements of an erasure (issue 29): every trace of one address within one team removed or
// redacted in place. Each statement is one short transaction over at most WALK rows, walked in key
// order (a keyset cursor), so no lock is held for long and a large team is read once, not once per
// batch. Each statement only changes rows that still mention the address, so running it again
// finds nothing more (idempotent). What must not be here: the address stored anywhere new.
//
// Matching: `re` is a case-insensitive PostgreSQL regular expression for the address (plain or
// with its @ percent-encoded, not inside a longer address: privacy/address-pattern.ts); `addr` is
// the normalised address for exact columns (contacts.email, suppressions.email, ...).
import type { Queryable } from './db.js';

/** Rows read per statement when walking a table. */
export const WALK = 1000;
/**
 * What an erased address becomes where the row stays (recipients of sent mail, event data):
 * `erased-<16 hex of its keyed hash>@erased.invalid`, distinct per address, since a broadcast's
 * copies are unique per recipient (emails_broadcast_recipient) and two erased recipients of one
 * broadcast must not collide. The hash prefix is keyed: it names no address without the secret.
 */
export const erasedAddress = (hash: string) => `erased-${hash.slice(0, 16)}@erased.invalid`;

export interface ErasureScope {
  teamId: string;
  addr: string;
  re: string;
  /** erasedAddress(hash) */
  replacement: string;
}

const NIL_UUID = '00000000-0000-0000-0000-000000000000';

/** `regexp_replace` of a text expression. Parameters: $2 = re, $3 = the replacement. */
const red = (expr: string) => `regexp_replace(${expr}, $2, $3, 'gi')`;
const redJson = (col: string) => `CASE WHEN ${col}::text ~* $2 THEN ${red(`${col}::text`)}::jsonb ELSE ${col} END`;
const redArr = (col: string) => `ARRAY(SELECT ${red('x')} FROM unnest(${col}) WITH ORDINALITY AS u (x, i) ORDER BY i)`;
const arrText = (col: string) => `array_to_string(${col}, ' ')`;
/** The raw MIME with the address replaced where it is plain text: through the escape encoding,
 * which turns every byte that is not printable ASCII (and the backslash) into an escape and back. */
const RAW_REDACTED = `CASE WHEN encode(t.raw, 'escape') ~* $2
  THEN decode(regexp_replace(encode(t.raw, 'escape'), $2, $3, 'gi'), 'escape') ELSE t.raw END`;

/**
 * Walks `table` of the team in id order, WALK rows per statement, running `step` (an UPDATE or
 * DELETE over the CTE `chunk(k)`, RETURNING 1; or CTEs ending in one named `done`) on each.
 * Parameters: $1 team, $2 re, $3 replacement, $4 cursor, then `extra`. Returns the rows touched.
 */
async function walk(
  db: Queryable,
  s: ErasureScope,
  table: string,
  step: string,
  extra: unknown[] = [],
  keyType: 'uuid' | 'text' = 'uuid',
): Promise<number> {
  let cursor = keyType === 'uuid' ? NIL_UUID : '';
  let total = 0;
  for (;;) {
    const { rows } = await db.query<{ last: string | null; n: number }>(
      // ($2 and $3 typed here: a step may use neither.)
      `WITH chunk AS MATERIALIZED (SELECT id AS k FROM ${table}
         WHERE team_id = $1 AND id > $4::${keyType} AND $2::text <> $3::text ORDER BY id LIMIT ${WALK}),
       ${/^\w+ AS \(/.test(step.trimStart()) ? step : `done AS (${step})`}
       SELECT (SELECT k::text FROM chunk ORDER BY k DESC LIMIT 1) AS last, (SELECT count(*)::int FROM done) AS n`,
      [s.teamId, s.re, s.replacement, cursor, ...extra],
    );
    total += rows[0].n;
    if (!rows[0].last) return total;
    cursor = rows[0].last;
  }
}

/** The team's contacts with this address (one, since contacts are unique per address): ids and what hangs on them. */
export async function erasureContacts(
  db: Queryable,
  s: ErasureScope,
): Promise<{ id: string; segments: number; topics: number }[]> {
  const { rows } = await db.query(
    `SELECT c.id, (SELECT count(*)::int FROM contact_segments cs WHERE cs.contact_id = c.id) AS segments,
       (SELECT count(*)::int FROM contact_topics ct WHERE ct.contact_id = c.id) AS topics
     FROM contacts c WHERE c.team_id = $1 AND lower(c.email) = $2`,
    [s.teamId, s.addr],
  );
  return rows;
}

/** Other contacts whose names or properties carry the address. */
export const erasureContactsRedact = (db: Queryable, s: ErasureScope) =>
  walk(
    db,
    s,
    'contacts',
    `UPDATE contacts t SET properties = ${redJson('t.properties')}, first_name = ${red('t.first_name')},
      last_name = ${red('t.last_name')}
     FROM chunk WHERE t.id = chunk.k AND (t.properties::text ~* $2 OR t.first_name ~* $2 OR t.last_name ~* $2)
     RETURNING 1`,
  );

/** Staged rows of contact imports, and the failed rows an import reports. */
export async function erasureImportRows(db: Queryable, s: ErasureScope): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM contact_import_rows r USING contact_imports i
     WHERE i.team_id = $1 AND r.run_id = i.run_id AND (lower(r.email) = $2 OR r.properties::text ~* $3)`,
    [s.teamId, s.addr, s.re],
  );
  const { rowCount: failed } = await db.query(
    `UPDATE contact_imports t SET failed_rows = ${redJson('t.failed_rows')}, error = ${red('t.error')}
     WHERE t.team_id = $1 AND (t.failed_rows::text ~* $2 OR t.error ~* $2)`,
    [s.teamId, s.re, s.replacement],
  );
  return (rowCount ?? 0) + (failed ?? 0);
}

/**
 * The address's own rows of `table` (its `email` column) deleted in chunks; then the other rows
 * whose `column` (JSON) mentions it, redacted. Returns both counts together.
 */
async function deleteOwnRedactOthers(
  db: Queryable,
  s: ErasureScope,
  table: 'custom_events' | 'automation_runs',
  column: 'payload' | 'event',
): Promise<number> {
  let n = 0;
  for (;;) {
    const { rowCount } = await db.query(
      `DELETE FROM ${table} WHERE id IN (
         SELECT id FROM ${table} WHERE team_id = $1 AND lower(email) = $2 LIMIT ${WALK})`,
      [s.teamId, s.addr],
    );
    n += rowCount ?? 0;
    if ((rowCount ?? 0) < WALK) break;
  }
  return (
    n +
    (await walk(
      db,
      s,
      table,
      `UPDATE ${table} t SET ${column} = ${redJson(`t.${column}`)}
       FROM chunk WHERE t.id = chunk.k AND t.${column}::text ~* $2 RETURNING 1`,
    ))
  );
}

/** Custom events for the address go; others that mention it in their payload are redacted. */
export const erasureCustomEvents = (db: Queryable, s: ErasureScope): Promise<number> =>
  deleteOwnRedactOthers(db, s, 'custom_events', 'payload');

/** Automation runs for the address go (their steps with them); other runs' trigger events are redacted. */
export const erasureAutomationRuns = (db: Queryable, s: ErasureScope): Promise<number> =>
  deleteOwnRedactOthers(db, s, 'automation_runs', 'event');

/**
 * Sent mail: the address leaves every recipient list; an email sent only to it loses its content
 * (subject, bodies, headers, raw MIME: the sent attachments are read from the raw message); an
 * email also sent to others keeps its bodies with the address redacted in them. Its raw MIME is
 * dropped when the content mentions the address (a base64 or quoted-printable body would hide it
 * from a text replacement); otherwise the address is replaced in it where it is plain text (the
 * To, Cc and Reply-To headers), so deliveries still due to the others go on (DKIM signs at
 * delivery, after this). Returns the ids of the emails that were addressed to it.
 */
export async function erasureEmails(
  db: Queryable,
  s: ErasureScope,
): Promise<{ addressed: string[]; contentRemoved: number; redacted: number }> {
  const addressed: string[] = [];
  let contentRemoved = 0;
  let redacted = 0;
  let cursor = NIL_UUID;
  const addrs = arrText('t.to_addrs || t.cc_addrs || t.bcc_addrs');
  for (;;) {
    const { rows } = await db.query<{ last: string | null; hits: { id: string; only: boolean; to: boolean }[] | null }>(
      `WITH chunk AS MATERIALIZED (
         SELECT id AS k FROM emails WHERE team_id = $1 AND id > $4::uuid ORDER BY id LIMIT ${WALK}),
       hit AS MATERIALIZED (
         SELECT t.id, ${addrs} ~* $2 AS addressed,
           NOT EXISTS (SELECT 1 FROM unnest(t.to_addrs || t.cc_addrs || t.bcc_addrs) AS x WHERE x !~* $2) AS sole,
           (t.subject ~* $2 OR t.html ~* $2 OR t.text_body ~* $2 OR t.headers::text ~* $2
             OR t.personalization::text ~* $2) AS content
         FROM emails t JOIN chunk ON t.id = chunk.k
         WHERE ${addrs} ~* $2 OR ${arrText('t.reply_to')} ~* $2 OR t.subject ~* $2 OR t.html ~* $2 OR t.text_body ~* $2
           OR t.headers::text ~* $2 OR t.tags::text ~* $2 OR t.personalization::text ~* $2 OR t.insights::text ~* $2),
       u AS (
         UPDATE emails t SET
           to_addrs = ${redArr('t.to_addrs')}, cc_addrs = ${redArr('t.cc_addrs')}, bcc_addrs = ${redArr('t.bcc_addrs')},
           reply_to = ${redArr('t.reply_to')},
           subject = CASE WHEN hit.sole THEN '' ELSE ${red('t.subject')} END,
           html = CASE WHEN hit.sole THEN NULL ELSE ${red('t.html')} END,
           text_body = CASE WHEN hit.sole THEN NULL ELSE ${red('t.text_body')} END,
           headers = CASE WHEN hit.sole THEN NULL ELSE ${redJson('t.headers')} END,
           tags = ${redJson('t.tags')},
           personalization = CASE WHEN hit.sole THEN NULL ELSE ${redJson('t.personalization')} END,
           insights = CASE WHEN hit.sole THEN NULL ELSE ${redJson('t.insights')} END,
           raw = CASE WHEN hit.sole OR hit.content THEN NULL ELSE ${RAW_REDACTED} END,
           raw_purged_at = CASE WHEN t.raw IS NOT NULL AND (hit.sole OR hit.content) THEN now() ELSE t.raw_purged_at END
         FROM hit WHERE t.id = hit.id RETURNING 1)
       SELECT (SELECT k::text FROM chunk ORDER BY k DESC LIMIT 1) AS last,
         (SELECT json_agg(json_build_object('id', id, 'only', sole AND addressed, 'to', addressed)) FROM hit) AS hits,
         (SELECT count(*) FROM u) AS n`,
      [s.teamId, s.re, s.replacement, cursor],
    );
    for (const h of rows[0].hits ?? []) {
      if (h.to) addressed.push(h.id);
      if (h.only) contentRemoved++;
      else redacted++;
    }
    if (!rows[0].last) return { addressed, contentRemoved, redacted };
    cursor = rows[0].last;
  }
}

/**
 * The emails that were addressed to it, found by its placeholder (so that a run resumed after a
 * crash, when the recipient lists are already redacted, still finds them).
 */
export async function erasureAddressedEmails(db: Queryable, s: ErasureScope): Promise<string[]> {
  const { rows } = await db.query<{ id: string }>(
    'SELECT id FROM emails WHERE team_id = $1 AND $2 = ANY (to_addrs || cc_addrs || bcc_addrs)',
    [s.teamId, s.replacement],
  );
  return rows.map((r) => r.id);
}

const TRACKED_PATHS = ['{open,ipAddress}', '{open,userAgent}', '{click,ipAddress}', '{click,userAgent}'];
export const stripTracking = (col: string) =>
  TRACKED_PATHS.reduce((acc, p) => `jsonb_set(${acc}, '${p}', 'null'::jsonb, false)`, col);

/**
 * Email events: the address redacted wherever it appears (recipient, webhook data, detail); the
 * opens and clicks of the emails addressed to it lose their IP address and user agent. $5: those emails.
 */
export const erasureEmailEvents = (db: Queryable, s: ErasureScope, addressed: string[]) =>
  walk(
    db,
    s,
    'email_events',
    `UPDATE email_events t SET
       recipient = ${red('t.recipient')},
       data = CASE WHEN t.type IN ('email.opened', 'email.clicked') AND t.email_id = ANY($5::uuid[])
                   THEN ${stripTracking(redJson('t.data'))} ELSE ${redJson('t.data')} END,
       detail = ${redJson('t.detail')}
     FROM chunk WHERE t.id = chunk.k AND (t.recipient ~* $2 OR t.data::text ~* $2 OR t.detail::text ~* $2
       OR (t.type IN ('email.opened', 'email.clicked') AND t.email_id = ANY($5::uuid[])
           AND (t.data->'open'->>'ipAddress' IS NOT NULL OR t.data->'open'->>'userAgent' IS NOT NULL
             OR t.data->'click'->>'ipAddress' IS NOT NULL OR t.data->'click'->>'userAgent' IS NOT NULL)))
     RETURNING 1`,
    [addressed],
  );

/**
 * Received mail from or to the address goes, with its raw message and attachments (blob_chunks);
 * other received mail that mentions it is redacted. Returns [deleted, redacted].
 */
export async function erasureReceivedEmails(db: Queryable, s: ErasureScope): Promise<[number, number]> {
  const lists = arrText('t.to_addrs || t.cc_addrs || t.bcc_addrs || t.reply_to || t.received_for');
  const addrs = `${lists} || ' ' || t.from_addr || ' ' || t.mail_from`;
  const deleted = await walk(
    db,
    s,
    'received_emails',
    `gone AS (SELECT t.id, t.raw_blob FROM received_emails t JOIN chunk ON t.id = chunk.k WHERE ${addrs} ~* $2),
     b AS (SELECT raw_blob AS blob_id FROM gone WHERE raw_blob IS NOT NULL
           UNION ALL SELECT a.blob_id FROM received_attachments a
           WHERE a.email_id IN (SELECT id FROM gone) AND a.blob_id IS NOT NULL),
     chunks AS (DELETE FROM blob_chunks WHERE blob_id IN (SELECT blob_id FROM b) RETURNING 1),
     done AS (DELETE FROM received_emails WHERE id IN (SELECT id FROM gone) RETURNING 1)`,
  );
  const redacted = await walk(
    db,
    s,
    'received_emails',
    `UPDATE received_emails t SET subject = ${red('t.subject')}, html = ${red('t.html')},
      text_body = ${red('t.text_body')},
       headers = ${redJson('t.headers')}
     FROM chunk WHERE t.id = chunk.k
       AND (t.subject ~* $2 OR t.html ~* $2 OR t.text_body ~* $2 OR t.headers::text ~* $2) RETURNING 1`,
  );
  return [deleted, redacted];
}

/** What reached the return paths about those emails or for the address (bounces, complaints, replies). $5: emails. */
export const erasureReturnPathMessages = (db: Queryable, s: ErasureScope, addressed: string[]) =>
  walk(
    db,
    s,
    'return_path_messages',
    `DELETE FROM return_path_messages t USING chunk WHERE t.id = chunk.k AND (t.email_id = ANY($5::uuid[])
       OR t.rcpt_to ~* $2 OR t.mail_from ~* $2 OR t.subject ~* $2 OR t.detail::text ~* $2
       OR encode(t.raw, 'escape') ~* $2) RETURNING 1`,
    [addressed],
  );

/** API request logs: the address redacted in the path and both bodies. */
export const erasureRequestLogs = (db: Queryable, s: ErasureScope) =>
  walk(
    db,
    s,
    'request_logs',
    `UPDATE request_logs t SET endpoint = ${red('t.endpoint')}, path = ${red('t.path')},
       request_body = ${redJson('t.request_body')}, response_body = ${redJson('t.response_body')}
     FROM chunk WHERE t.id = chunk.k AND (t.endpoint ~* $2 OR t.path ~* $2 OR t.request_body::text ~* $2
       OR t.response_body::text ~* $2) RETURNING 1`,
  );

/** Webhook deliveries: the address redacted in the payloads sent and the answers logged. */
export const erasureWebhookAttempts = (db: Queryable, s: ErasureScope) =>
  walk(
    db,
    s,
    'webhook_attempts',
    `UPDATE webhook_attempts t SET request_body = ${red('t.request_body')}, response_body = ${red('t.response_body')},
       request_headers = ${redJson('t.request_headers')}, error_message = ${red('t.error_message')}
     FROM chunk WHERE t.id = chunk.k AND (t.request_body ~* $2 OR t.response_body ~* $2
       OR t.request_headers::text ~* $2 OR t.error_message ~* $2) RETURNING 1`,
    [],
    'text',
  );

/** Stored answers of idempotent requests that carry the address. */
export async function erasureIdempotencyKeys(db: Queryable, s: ErasureScope): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE idempotency_keys t SET response_body = ${redJson('t.response_body')}
     WHERE t.team_id = $1 AND t.response_body::text ~* $2`,
    [s.teamId, s.re, s.replacement],
  );
  return rowCount ?? 0;
}

/**
 * The plain suppression goes and the keyed hash stays (one statement: the address is never both
 * absent from both). Returns whether a plain suppression existed.
 */
export async function erasureSuppress(db: Queryable, s: ErasureScope, hash: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH h AS (INSERT INTO erased_addresses (team_id, hash) VALUES ($1, $3) ON CONFLICT DO NOTHING),
     d AS (DELETE FROM suppressions WHERE team_id = $1 AND email = $2 RETURNING 1)
     SELECT count(*)::int AS n FROM d`,
    [s.teamId, s.addr, hash],
  );
  return rows[0].n;
}

/** Earlier exports of the address: their documents are dropped (the request rows stay, without them). */
export async function erasureExports(db: Queryable, teamId: string, hash: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH x AS (SELECT id, result_blob FROM privacy_requests
                WHERE team_id = $1 AND subject_hash = $2 AND kind = 'export' AND result_blob IS NOT NULL),
     c AS (DELETE FROM blob_chunks WHERE blob_id IN (SELECT result_blob FROM x)),
     u AS (UPDATE privacy_requests p SET result_blob = NULL FROM x WHERE p.id = x.id)
     SELECT count(*)::int AS n FROM x`,
    [teamId, hash],
  );
  return rows[0].n;
}

// A segment's contacts, for both kinds: fixed members (contact_segments) or a filter evaluated in
// SQL (segment-filter.ts), so a million-contact segment is paged and counted without loading it.
// segmentRecipientsAfter is the one cursor walk for fan-out (broadcasts).
import { AppError } from '../errors.js';
import type { Rule } from '../lib/filter-rule.js';
import { CONTACT_LIST_COLUMNS, type ContactRow } from './contacts.js';
import { withTx, type Pool, type Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';
import { filterSql, topicDefaultsFind } from './segment-filter.js';

export interface SegmentKind {
  id: string;
  filter: Rule | null;
}
export type ContactListItem = Pick<
  ContactRow,
  'id' | 'email' | 'first_name' | 'last_name' | 'created_at' | 'unsubscribed'
>;

/** The condition on `contacts` for the segment, its values pushed onto `params`. */
async function conditionOf(db: Queryable, teamId: string, s: SegmentKind, params: unknown[]): Promise<string> {
  if (!s.filter) {
    params.push(s.id);
    return `contacts.id IN (SELECT contact_id FROM contact_segments WHERE segment_id = $${params.length}::uuid)`;
  }
  return filterSql(s.filter, await topicDefaultsFind(db, teamId, s.filter), params);
}

/** One page of the segment's contacts (Resend cursors, newest first), as GET /contacts lists them. */
export async function segmentContactsPage(
  db: Queryable,
  teamId: string,
  s: SegmentKind,
  page: PageQuery,
): Promise<Page<ContactListItem>> {
  if (s.filter && page.limit !== undefined && !page.before)
    return filterPageWalk(db, teamId, s, { ...page, limit: page.limit });
  const params: unknown[] = [];
  const where = await conditionOf(db, teamId, s, params);
  return paginate<ContactListItem>(db, {
    table: 'contacts',
    columns: CONTACT_LIST_COLUMNS,
    teamId,
    page,
    where,
    params,
  });
}

/**
 * Contacts read per step when a filter's page walks the team's contacts newest first: growing
 * windows, then one set-based query for whatever is left (filterPageWalk).
 */
export const WALK_WINDOWS: readonly number[] = [5_000, 25_000, 100_000];

type Edge = { created_at: string; id: string };

/**
 * A newest-first page of a filter segment, read in windows of the index contacts_team_created: each
 * window is the next N contacts below the cursor with the filter applied to them alone (nested-loop
 * probes into contact_topics and email_events), so a page costs the contacts walked to fill it,
 * whatever PostgreSQL guesses about the filter's selectivity (its guess for a property compared by
 * ->> is 0.5%, which made it hash the whole table for a 0.05% filter: 300 ms at 1M, BENCHMARKS.md).
 * When the windows do not fill the page, the rest is one query over the older contacts, planned as
 * PostgreSQL likes (a very rare filter: a full pass was always the price). Same rows as paginate().
 */
export async function filterPageWalk(
  db: Queryable,
  teamId: string,
  s: SegmentKind,
  page: PageQuery & { limit: number },
  windows: readonly number[] = WALK_WINDOWS,
): Promise<Page<ContactListItem>> {
  let cursor: Edge | null = null;
  if (page.after) {
    const { rows } = await db.query<Edge>(
      'SELECT created_at::text AS created_at, id FROM contacts WHERE team_id = $1 AND id = $2',
      [teamId, page.after],
    );
    if (!rows[0]) throw new AppError('validation_error', 'The `after` cursor does not match any item.');
    cursor = rows[0];
  }
  const base: unknown[] = [teamId];
  const where = await conditionOf(db, teamId, s, base);
  const below = (params: unknown[], c: Edge | null): string => {
    if (!c) return '';
    params.push(c.created_at, c.id);
    return ` AND (created_at, id) < ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  };
  const want = page.limit + 1;
  const found: ContactListItem[] = [];
  for (const size of windows) {
    const params = [...base];
    const after = below(params, cursor);
    params.push(size, want - found.length);
    const { rows } = await db.query<ContactListItem>(
      `SELECT ${CONTACT_LIST_COLUMNS} FROM (SELECT * FROM contacts WHERE team_id = $1${after} ORDER BY created_at DESC, id DESC LIMIT $${params.length - 1}) contacts
       WHERE ${where} ORDER BY contacts.created_at DESC, contacts.id DESC LIMIT $${params.length}`,
      params,
    );
    found.push(...rows);
    if (found.length >= want) break;
    // The window's oldest contact: the next window starts below it (none: the walk reached the end).
    const edgeParams: unknown[] = [teamId];
    const edgeAfter = below(edgeParams, cursor);
    edgeParams.push(size - 1);
    const edge = await db.query<Edge>(
      // Qualified ORDER BY: a bare created_at would be the text output column (a sort of the whole table).
      `SELECT created_at::text AS created_at, id FROM contacts WHERE team_id = $1${edgeAfter} ORDER BY contacts.created_at DESC, contacts.id DESC OFFSET $${edgeParams.length} LIMIT 1`,
      edgeParams,
    );
    if (!edge.rows[0]) return { has_more: false, data: found };
    cursor = edge.rows[0];
  }
  if (found.length < want) {
    const params = [...base];
    const after = below(params, cursor);
    params.push(want - found.length);
    const { rows } = await db.query<ContactListItem>(
      `SELECT ${CONTACT_LIST_COLUMNS} FROM contacts WHERE contacts.team_id = $1 AND ${where}${after.replaceAll('(created_at, id)', '(contacts.created_at, contacts.id)')}
       ORDER BY contacts.created_at DESC, contacts.id DESC LIMIT $${params.length}`,
      params,
    );
    found.push(...rows);
  }
  const hasMore = found.length > page.limit;
  return { has_more: hasMore, data: hasMore ? found.slice(0, page.limit) : found };
}

/** The contacts matching a filter that no segment holds yet (the dashboard's live preview). */
export function filterContactsPage(
  db: Queryable,
  teamId: string,
  filter: Rule,
  page: PageQuery,
): Promise<Page<ContactListItem>> {
  return segmentContactsPage(db, teamId, { id: '', filter }, page);
}

/**
 * How many contacts the segment has: exact, in SQL, counting at most `cap` (then `capped`). A
 * filter over 1M contacts costs a full scan of them (BENCHMARKS.md); the cap bounds that work.
 */
export async function segmentContactsCount(
  db: Queryable,
  teamId: string,
  s: SegmentKind,
  cap: number,
): Promise<{ count: number; capped: boolean }> {
  const params: unknown[] = [teamId];
  return contactsCountWithin(db, params, await conditionOf(db, teamId, s, params), cap);
}

/**
 * How many of a team's contacts meet `where` (parameters in `params`, $1 the team), counting at
 * most `cap` (then `capped`). Shared by segment sizes and the contact search's count.
 */
export async function contactsCountWithin(
  db: Queryable,
  params: unknown[],
  where: string,
  cap: number,
): Promise<{ count: number; capped: boolean }> {
  params.push(cap + 1);
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM contacts WHERE contacts.team_id = $1 AND ${where} LIMIT $${params.length}) m`,
    params,
  );
  const n = rows[0].n;
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}

/**
 * segmentContactsCount given at most `ms` of PostgreSQL time (a list counting many segments at once):
 * undefined when it took longer (a rare filter over a very large team reads every contact).
 */
export async function segmentContactsCountWithin(
  pool: Pool,
  teamId: string,
  s: SegmentKind,
  cap: number,
  ms: number,
): Promise<{ count: number; capped: boolean } | undefined> {
  try {
    return await withTx(pool, async (tx) => {
      await tx.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(ms))}`);
      return segmentContactsCount(tx, teamId, s, cap);
    });
  } catch (err) {
    if ((err as { code?: string }).code === '57014') return undefined; // query_canceled: the time ran out
    throw err;
  }
}

export interface RecipientRow
  extends Pick<
    ContactRow,
    'id' | 'email' | 'first_name' | 'last_name' | 'unsubscribed' | 'properties' | 'created_at'
  > {}
export interface RecipientCursor {
  created_at: string;
  id: string;
}

/**
 * The next `limit` contacts of the segment after `cursor` (null = from the start), oldest first by
 * (created_at, id): a keyset walk that neither skips nor repeats a contact while the list changes
 * behind it (contacts created during the walk come after it and are reached too). Works for both
 * kinds of segment. Returns the rows and the cursor of the last (null when the walk is over).
 */
export async function segmentRecipientsAfter(
  db: Queryable,
  teamId: string,
  s: SegmentKind,
  cursor: RecipientCursor | null,
  limit: number,
): Promise<{ rows: RecipientRow[]; next: RecipientCursor | null }> {
  const params: unknown[] = [teamId];
  return contactsWalkPage(db, params, await conditionOf(db, teamId, s, params), cursor, limit);
}

/**
 * One page of a keyset walk over a team's contacts: `where` is a condition on contacts whose
 * parameters are in `params` ($1 is the team). Shared by the segment walks and the contact search's
 * bulk operations.
 */
export async function contactsWalkPage(
  db: Queryable,
  params: unknown[],
  where: string,
  cursor: RecipientCursor | null,
  limit: number,
): Promise<{ rows: RecipientRow[]; next: RecipientCursor | null }> {
  let after = '';
  if (cursor) {
    params.push(cursor.created_at, cursor.id);
    after = ` AND (contacts.created_at, contacts.id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  params.push(limit);
  const { rows } = await db.query<RecipientRow>(
    `SELECT id, email, first_name, last_name, unsubscribed, properties, created_at::text AS created_at FROM contacts
     WHERE contacts.team_id = $1 AND ${where}${after} ORDER BY contacts.created_at, contacts.id LIMIT $${params.length}`,
    params,
  );
  const last = rows[rows.length - 1];
  return { rows, next: rows.length === limit && last ? { created_at: last.created_at, id: last.id } : null };
}

/** Whether the contact is in the segment (a member, or matching its filter). */
export async function segmentHasContact(
  db: Queryable,
  teamId: string,
  s: SegmentKind,
  contactId: string,
): Promise<boolean> {
  const params: unknown[] = [teamId, contactId];
  const where = await conditionOf(db, teamId, s, params);
  const { rowCount } = await db.query(
    `SELECT 1 FROM contacts WHERE contacts.team_id = $1 AND contacts.id = $2 AND ${where}`,
    params,
  );
  return Boolean(rowCount);
}

/** Which of the given filter segments the contact matches, in one statement. */
export async function filterSegmentsMatching(
  db: Queryable,
  teamId: string,
  contactId: string,
  segments: SegmentKind[],
): Promise<Set<string>> {
  if (!segments.length) return new Set();
  const params: unknown[] = [teamId, contactId];
  const arms: string[] = [];
  for (const s of segments) {
    const where = await conditionOf(db, teamId, s, params);
    params.push(s.id);
    arms.push(
      `SELECT $${params.length}::uuid AS id WHERE EXISTS (SELECT 1 FROM contacts WHERE contacts.team_id = $1 AND contacts.id = $2 AND ${where})`,
    );
  }
  const { rows } = await db.query<{ id: string }>(arms.join(' UNION ALL '), params);
  return new Set(rows.map((r) => r.id));
}

/** Who a broadcast to the segment would reach, and who it would skip and why (broadcastAudience). */
export interface AudienceCount {
  /** the segment's contacts (up to the cap) */
  contacts: number;
  /** skipped, each contact counted once under the first reason, in the order the fan-out checks them */
  unsubscribed: number;
  topic: number;
  suppressed: number;
  /** contacts - skipped: one email each (addresses are unique per team) */
  recipients: number;
  capped: boolean;
}

/**
 * The audience of a broadcast to the segment (and topic), counted in one statement with the same
 * rules and order as the fan-out (broadcasts/expand.job.ts with broadcastPageExclusions):
 * unsubscribed from list mail, then opted out of the topic (their own choice, else the topic's
 * default), then on the suppression list. At most `cap` contacts are read (then `capped`).
 */
export async function segmentAudienceCount(
  db: Queryable,
  teamId: string,
  s: SegmentKind,
  topicId: string | null,
  cap: number,
): Promise<AudienceCount> {
  const params: unknown[] = [teamId];
  const where = await conditionOf(db, teamId, s, params);
  params.push(topicId, cap + 1);
  const topic = `$${params.length - 1}::uuid`;
  const { rows } = await db.query<{ n: number; unsub: number; topic: number; supp: number }>(
    `SELECT count(*)::int AS n,
       count(*) FILTER (WHERE unsubscribed)::int AS unsub,
       count(*) FILTER (WHERE NOT unsubscribed AND topic_out)::int AS topic,
       count(*) FILTER (WHERE NOT unsubscribed AND NOT topic_out AND suppressed)::int AS supp
     FROM (
       SELECT contacts.unsubscribed,
         coalesce((SELECT coalesce(ct.subscription, t.default_subscription) = 'opt_out'
                   FROM topics t LEFT JOIN contact_topics ct ON ct.contact_id = contacts.id AND ct.topic_id = t.id
                   WHERE t.id = ${topic} AND t.team_id = $1), false) AS topic_out,
         EXISTS (SELECT 1 FROM suppressions sp WHERE sp.team_id = $1 AND sp.email = lower(contacts.email)) AS suppressed
       FROM contacts WHERE contacts.team_id = $1 AND ${where} LIMIT $${params.length}
     ) a`,
    params,
  );
  const r = rows[0];
  const capped = r.n > cap;
  // Over the cap one row too many was read; it is dropped from the total only (the split stays as read).
  const contacts = capped ? cap : r.n;
  return {
    contacts,
    unsubscribed: r.unsub,
    topic: r.topic,
    suppressed: r.supp,
    recipients: Math.max(contacts - r.unsub - r.topic - r.supp, 0),
    capped,
  };
}

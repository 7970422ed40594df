// A segment's contacts, for both kinds: fixed members (contact_segments) or a filter evaluated in
// SQL (segment-filter.ts), so a million-contact segment is paged and counted without loading it.
// segmentRecipientsAfter is the one cursor walk for fan-out (broadcasts).
import type { Rule } from '../lib/filter-rule.js';
import { CONTACT_LIST_COLUMNS, type ContactRow } from './contacts.js';
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';
import { filterSql, topicDefaultsFind } from './segment-filter.js';

export interface SegmentKind { id: string; filter: Rule | null }
export type ContactListItem = Pick<ContactRow, 'id' | 'email' | 'first_name' | 'last_name' | 'created_at' | 'unsubscribed'>;

/** The condition on `contacts` for the segment, its values pushed onto `params`. */
async function conditionOf(db: Queryable, teamId: string, s: SegmentKind, params: unknown[]): Promise<string> {
  if (!s.filter) {
    params.push(s.id);
    return `contacts.id IN (SELECT contact_id FROM contact_segments WHERE segment_id = $${params.length}::uuid)`;
  }
  return filterSql(s.filter, await topicDefaultsFind(db, teamId, s.filter), params);
}

/** One page of the segment's contacts (Resend cursors, newest first), as GET /contacts lists them. */
export async function segmentContactsPage(db: Queryable, teamId: string, s: SegmentKind, page: PageQuery): Promise<Page<ContactListItem>> {
  const params: unknown[] = [];
  const where = await conditionOf(db, teamId, s, params);
  return paginate<ContactListItem>(db, { table: 'contacts', columns: CONTACT_LIST_COLUMNS, teamId, page, where, params });
}

/** The contacts matching a filter that no segment holds yet (the dashboard's live preview). */
export function filterContactsPage(db: Queryable, teamId: string, filter: Rule, page: PageQuery): Promise<Page<ContactListItem>> {
  return segmentContactsPage(db, teamId, { id: '', filter }, page);
}

/**
 * How many contacts the segment has: exact, in SQL, counting at most `cap` (then `capped`). A
 * filter over 1M contacts costs a full scan of them (BENCHMARKS.md); the cap bounds that work.
 */
export async function segmentContactsCount(db: Queryable, teamId: string, s: SegmentKind, cap: number): Promise<{ count: number; capped: boolean }> {
  const params: unknown[] = [teamId];
  const where = await conditionOf(db, teamId, s, params);
  params.push(cap + 1);
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT 1 FROM contacts WHERE contacts.team_id = $1 AND ${where} LIMIT $${params.length}) m`, params);
  const n = rows[0].n;
  return n > cap ? { count: cap, capped: true } : { count: n, capped: false };
}

export interface RecipientRow extends Pick<ContactRow, 'id' | 'email' | 'first_name' | 'last_name' | 'unsubscribed' | 'properties' | 'created_at'> {}
export interface RecipientCursor { created_at: string; id: string }

/**
 * The next `limit` contacts of the segment after `cursor` (null = from the start), oldest first by
 * (created_at, id): a keyset walk that neither skips nor repeats a contact while the list changes
 * behind it (contacts created during the walk come after it and are reached too). Works for both
 * kinds of segment. Returns the rows and the cursor of the last (null when the walk is over).
 */
export async function segmentRecipientsAfter(db: Queryable, teamId: string, s: SegmentKind, cursor: RecipientCursor | null, limit: number): Promise<{ rows: RecipientRow[]; next: RecipientCursor | null }> {
  const params: unknown[] = [teamId];
  const where = await conditionOf(db, teamId, s, params);
  let after = '';
  if (cursor) {
    params.push(cursor.created_at, cursor.id);
    after = ` AND (contacts.created_at, contacts.id) > ($${params.length - 1}::timestamptz, $${params.length}::uuid)`;
  }
  params.push(limit);
  const { rows } = await db.query<RecipientRow>(
    `SELECT id, email, first_name, last_name, unsubscribed, properties, created_at::text AS created_at FROM contacts
     WHERE contacts.team_id = $1 AND ${where}${after} ORDER BY contacts.created_at, contacts.id LIMIT $${params.length}`, params);
  const last = rows[rows.length - 1];
  return { rows, next: rows.length === limit && last ? { created_at: last.created_at, id: last.id } : null };
}

/** Whether the contact is in the segment (a member, or matching its filter). */
export async function segmentHasContact(db: Queryable, teamId: string, s: SegmentKind, contactId: string): Promise<boolean> {
  const params: unknown[] = [teamId, contactId];
  const where = await conditionOf(db, teamId, s, params);
  const { rowCount } = await db.query(`SELECT 1 FROM contacts WHERE contacts.team_id = $1 AND contacts.id = $2 AND ${where}`, params);
  return Boolean(rowCount);
}

/** Which of the given filter segments the contact matches, in one statement. */
export async function filterSegmentsMatching(db: Queryable, teamId: string, contactId: string, segments: SegmentKind[]): Promise<Set<string>> {
  if (!segments.length) return new Set();
  const params: unknown[] = [teamId, contactId];
  const arms: string[] = [];
  for (const s of segments) {
    const where = await conditionOf(db, teamId, s, params);
    params.push(s.id);
    arms.push(`SELECT $${params.length}::uuid AS id WHERE EXISTS (SELECT 1 FROM contacts WHERE contacts.team_id = $1 AND contacts.id = $2 AND ${where})`);
  }
  const { rows } = await db.query<{ id: string }>(arms.join(' UNION ALL '), params);
  return new Set(rows.map((r) => r.id));
}

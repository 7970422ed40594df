// The team's contacts that a search matches (contacts/search.ts parses it): part of the address or
// name (the trigram index of migration 0065), a filter rule (segment-filter.ts), a segment of either
// kind, or a list of ids. Pages as GET /contacts lists them, an exact capped count, and the one
// keyset walk (oldest first) that bulk operations and the CSV export read in batches.
import type { Rule } from '../lib/filter-rule.js';
import { CONTACT_LIST_COLUMNS, type ContactRow } from './contacts.js';
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';
import { filterSql, topicDefaultsFind } from './segment-filter.js';
import { contactsCountWithin, contactsWalkPage, type SegmentKind } from './segment-contacts.js';

export interface ContactMatch {
  /** lowercased, trimmed substring of the address or the names */
  search?: string;
  filter?: Rule;
  segment?: SegmentKind;
  ids?: string[];
}

/** LIKE's own characters taken literally. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The condition on `contacts` for the match ('true' for none), its values pushed onto `params`. */
export async function matchSql(db: Queryable, teamId: string, m: ContactMatch, params: unknown[]): Promise<string> {
  const parts: string[] = [];
  if (m.search) {
    params.push(`%${likeEscape(m.search)}%`);
    parts.push(`mailroom_contact_text(contacts.email, contacts.first_name, contacts.last_name) LIKE $${params.length}`);
  }
  if (m.ids) {
    params.push(m.ids);
    parts.push(`contacts.id = ANY($${params.length}::uuid[])`);
  }
  for (const rule of [m.segment?.filter, m.filter]) {
    if (rule) parts.push(filterSql(rule, await topicDefaultsFind(db, teamId, rule), params));
  }
  if (m.segment && !m.segment.filter) {
    params.push(m.segment.id);
    parts.push(`contacts.id IN (SELECT contact_id FROM contact_segments WHERE segment_id = $${params.length}::uuid)`);
  }
  return parts.length ? parts.map((p) => `(${p})`).join(' AND ') : 'true';
}

export type ContactSearchItem = Pick<
  ContactRow,
  'id' | 'email' | 'first_name' | 'last_name' | 'created_at' | 'unsubscribed'
> & { properties?: ContactRow['properties'] };

/** One page of the matching contacts, newest first (Resend cursors), with `properties` when asked. */
export async function contactSearchPage(
  db: Queryable,
  teamId: string,
  m: ContactMatch,
  page: PageQuery,
  withProperties: boolean,
): Promise<Page<ContactSearchItem>> {
  const params: unknown[] = [];
  // paginate numbers its team parameter $1 and shifts ours; matchSql's team reads use the same team.
  const where = await matchSql(db, teamId, m, params);
  return paginate<ContactSearchItem>(db, {
    table: 'contacts',
    columns: withProperties ? `${CONTACT_LIST_COLUMNS}, properties` : CONTACT_LIST_COLUMNS,
    teamId,
    page,
    where,
    params,
  });
}

/** How many contacts match, exact up to `cap` (then `capped`). */
export async function contactSearchCount(
  db: Queryable,
  teamId: string,
  m: ContactMatch,
  cap: number,
): Promise<{ count: number; capped: boolean }> {
  const params: unknown[] = [teamId];
  return contactsCountWithin(db, params, await matchSql(db, teamId, m, params), cap);
}

export interface WalkCursor {
  created_at: string;
  id: string;
}
export type WalkRow = Pick<ContactRow, 'id' | 'email' | 'first_name' | 'last_name' | 'unsubscribed' | 'properties'> & {
  created_at: string;
};

/** The next `limit` matching contacts after `cursor`, oldest first by (created_at, id), and the cursor of the last. */
export async function contactSearchAfter(
  db: Queryable,
  teamId: string,
  m: ContactMatch,
  cursor: WalkCursor | null,
  limit: number,
): Promise<{ rows: WalkRow[]; next: WalkCursor | null }> {
  const params: unknown[] = [teamId];
  return contactsWalkPage(db, params, await matchSql(db, teamId, m, params), cursor, limit);
}

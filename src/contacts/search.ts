// Finding contacts (Mailroom extensions of GET /contacts, issue 30): the query parameters `search`,
// `filter`, `segment_id` and `ids` parsed and checked at the edge into one ContactMatch (422s in
// Resend's shape), the list with chosen `properties`, the total count, and the CSV export
// (formula cells neutralised as in the audit log's export).
import { AppError } from '../errors.js';
import { csvCell } from '../lib/csv-cell.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  contactSearchAfter,
  contactSearchCount,
  contactSearchPage,
  type ContactMatch,
  type WalkCursor,
} from '../store/contact-search.js';
import { contactPropertiesFind } from '../store/contact-properties.js';
import { filterOf } from './segment-filters.js';
import { segmentOf } from './segments.js';

export const SEARCH_LIMITS = {
  search: 200,
  filterText: 16_000,
  ids: 1_000,
  exportIds: 200,
  columns: 50,
  countCap: 1_000_000,
  exportRows: 50_000,
} as const;

/** The query (or body) fields a match is made of: all optional, all strings on the wire except `ids` in a body. */
export interface MatchQuery {
  search?: unknown;
  filter?: unknown;
  segment_id?: unknown;
  audience_id?: unknown;
  ids?: unknown;
}

const param = (name: string, why: string) => new AppError('validation_error', `Invalid \`${name}\` parameter: ${why}`);

/** Whether the query asks for anything beyond Resend's own list (then the search path answers). */
export const isSearch = (q: MatchQuery & { properties?: unknown }) =>
  q.search !== undefined || q.filter !== undefined || q.ids !== undefined || q.properties !== undefined;

/**
 * The ContactMatch of a query: `search` a substring of address or name (1-200 characters), `filter`
 * a rule tree of the segment filter language as JSON (a string in a query, an object in a body),
 * `segment_id` (or `audience_id`) a segment of either kind, `ids` contact ids (comma-separated in a
 * query, an array in a body). `idsMax` bounds the ids.
 */
export async function matchOf(
  db: Queryable,
  teamId: string,
  q: MatchQuery,
  idsMax: number = SEARCH_LIMITS.ids,
): Promise<ContactMatch> {
  const m: ContactMatch = {};
  if (q.search !== undefined && q.search !== null) {
    if (typeof q.search !== 'string') throw param('search', 'must be a string.');
    const s = q.search.trim().toLowerCase();
    if (s.length > SEARCH_LIMITS.search) throw param('search', `must be at most ${SEARCH_LIMITS.search} characters.`);
    if (s) m.search = s;
  }
  if (q.filter !== undefined && q.filter !== null && q.filter !== '') {
    let raw = q.filter;
    if (typeof raw === 'string') {
      if (raw.length > SEARCH_LIMITS.filterText)
        throw param('filter', `must be at most ${SEARCH_LIMITS.filterText} characters of JSON.`);
      try {
        raw = JSON.parse(raw);
      } catch {
        throw param('filter', 'must be a JSON rule tree (README, "Filter segments").');
      }
    }
    m.filter = await filterOf(db, teamId, raw);
  }
  const seg = q.segment_id ?? q.audience_id;
  if (q.segment_id !== undefined && q.audience_id !== undefined && q.segment_id !== q.audience_id)
    throw param('segment_id', 'it names a different segment than `audience_id`; give one of them.');
  if (seg !== undefined && seg !== null && seg !== '') {
    if (typeof seg !== 'string') throw param('segment_id', 'must be a segment id.');
    m.segment = await segmentOf(db, teamId, seg, q.segment_id === undefined ? 'Audience' : 'Segment');
  }
  if (q.ids !== undefined && q.ids !== null) {
    const list = typeof q.ids === 'string' ? q.ids.split(',').filter(Boolean) : q.ids;
    if (!Array.isArray(list) || list.length === 0 || list.length > idsMax)
      throw param('ids', `must be 1 to ${idsMax} contact ids.`);
    const bad = list.find((x) => typeof x !== 'string' || !isUuid(x));
    if (bad !== undefined) throw param('ids', `${JSON.stringify(bad).slice(0, 60)} is not a contact id.`);
    m.ids = [...new Set((list as string[]).map((x) => x.toLowerCase()))];
  }
  return m;
}

/** `properties`: a comma-separated list of the team's property keys (columns to show or export). */
async function columnsOf(db: Queryable, teamId: string, v: unknown): Promise<string[]> {
  if (v === undefined || v === null || v === '') return [];
  if (typeof v !== 'string') throw param('properties', 'must be a comma-separated list of property keys.');
  const keys = [
    ...new Set(
      v
        .split(',')
        .map((k) => k.trim())
        .filter(Boolean),
    ),
  ];
  if (keys.length > SEARCH_LIMITS.columns) throw param('properties', `names at most ${SEARCH_LIMITS.columns} keys.`);
  const known = new Set((await contactPropertiesFind(db, teamId)).map((p) => p.key));
  const unknown = keys.find((k) => !known.has(k));
  if (unknown !== undefined) throw param('properties', `no contact property has the key "${unknown.slice(0, 50)}".`);
  return keys;
}

/** GET /contacts with search parameters: Resend's list shape; `properties` adds the chosen keys to each item. */
export async function contactsSearch(
  db: Queryable,
  teamId: string,
  q: MatchQuery & { properties?: unknown },
  page: PageQuery,
) {
  const m = await matchOf(db, teamId, q);
  const keys = await columnsOf(db, teamId, q.properties);
  const p = await contactSearchPage(db, teamId, m, page, keys.length > 0);
  const data = p.data.map((c) => {
    if (!keys.length) return c;
    const props = c.properties ?? {};
    return { ...c, properties: Object.fromEntries(keys.map((k) => [k, props[k] ?? null])) };
  });
  return { object: 'list' as const, has_more: p.has_more, data };
}

/** GET /contacts/count: how many contacts match (exact up to a million, then `capped`). */
export async function contactsCount(db: Queryable, teamId: string, q: MatchQuery) {
  const m = await matchOf(db, teamId, q);
  const n = await contactSearchCount(db, teamId, m, SEARCH_LIMITS.countCap);
  return { object: 'contact_count' as const, count: n.count, capped: n.capped };
}

const HEAD = ['id', 'email', 'first_name', 'last_name', 'unsubscribed', 'created_at'];

/**
 * GET /contacts/export: the matching contacts (oldest first, at most 50,000) as CSV, the chosen
 * property keys as extra columns, read 1,000 at a time. Checked before the first line is sent.
 */
export async function contactsCsv(
  db: Queryable,
  teamId: string,
  q: MatchQuery & { properties?: unknown },
): Promise<AsyncGenerator<string>> {
  const m = await matchOf(db, teamId, q, SEARCH_LIMITS.exportIds);
  const keys = await columnsOf(db, teamId, q.properties);
  return (async function* () {
    yield `${[...HEAD, ...keys].map(csvCell).join(',')}\r\n`;
    let cursor: WalkCursor | null = null;
    let sent = 0;
    for (;;) {
      const { rows, next } = await contactSearchAfter(db, teamId, m, cursor, 1000);
      if (rows.length)
        yield rows
          .map(
            (c) =>
              `${[
                c.id,
                c.email,
                c.first_name,
                c.last_name,
                c.unsubscribed,
                c.created_at,
                ...keys.map((k) => c.properties[k]),
              ]
                .map(csvCell)
                .join(',')}\r\n`,
          )
          .join('');
      sent += rows.length;
      if (!next || sent >= SEARCH_LIMITS.exportRows) return;
      cursor = next;
    }
  })();
}

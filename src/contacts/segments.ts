// Segments (resend-compat 7.2; /audiences is the deprecated alias on the same rows): named lists of
// contacts. Membership: `segments` on POST /contacts ([{id}] or plain ids), /contacts/:id/segments,
// and the legacy audience-scoped contact routes. A segment is either such a fixed list or carries a
// `filter` (segment-filters.ts), evaluated in SQL on every read; a filter segment takes no members.
import { AppError, invalidField, missingField, notFound } from '../errors.js';
import { shown } from '../mime/addresses.js';
import { ruleUnevaluable } from '../lib/filter-rule.js';
import { isUuid } from '../lib/ids.js';
import type { Pool, Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  segmentDelete,
  segmentFilterSet,
  segmentFind,
  segmentHasMembers,
  segmentInsert,
  segmentList,
  segmentMemberRemove,
  segmentMembersAdd,
  segmentRename,
  segmentsFindMany,
  segmentsOfContact,
  segmentsWithFilter,
  type SegmentRow,
} from '../store/segments.js';
import { filterSegmentsMatching, segmentContactsCount, segmentContactsCountWithin } from '../store/segment-contacts.js';
import { COUNT_CAP, filterOf } from './segment-filters.js';

function nameOf(body: Record<string, unknown>, required: boolean): string | undefined {
  const v = body.name;
  if (v === undefined || v === null) {
    if (required) throw missingField('name');
    return undefined;
  }
  if (typeof v !== 'string' || !v.trim()) throw invalidField('name', 'must be a non-empty string.');
  if (v.length > 256 || /[\u0000-\u001f\u007f]/.test(v))
    throw invalidField('name', 'must be at most 256 characters, without line breaks or control characters.');
  return v.trim();
}

/** The segment, or Resend's 404 in the words of the path used (Segment or Audience). */
export async function segmentOf(
  db: Queryable,
  teamId: string,
  id: string,
  what: 'Segment' | 'Audience' = 'Segment',
): Promise<SegmentRow> {
  const s = isUuid(id) ? await segmentFind(db, teamId, id.toLowerCase()) : undefined;
  if (!s) throw notFound(what);
  return s;
}

export async function segmentCreate(
  db: Queryable,
  teamId: string,
  body: Record<string, unknown>,
  object: 'segment' | 'audience' = 'segment',
) {
  const name = nameOf(body, true)!;
  const filter = body.filter === undefined || body.filter === null ? null : await filterOf(db, teamId, body.filter);
  const s = await segmentInsert(db, teamId, name, filter);
  return { object, id: s.id, name: s.name };
}

/**
 * With Mailroom's extensions: `filter` (null for a fixed list) and `contacts_count`, counted in SQL up
 * to COUNT_CAP. A stored filter that cannot be evaluated (an impossible date an older version
 * accepted) is still shown, with `contacts_count: null` and `filter_error` saying what to change.
 */
export async function segmentGet(
  db: Queryable,
  teamId: string,
  id: string,
  object: 'segment' | 'audience' = 'segment',
) {
  const s = await segmentOf(db, teamId, id, object === 'audience' ? 'Audience' : 'Segment');
  const base = { object, id: s.id, name: s.name, created_at: s.created_at, filter: s.filter };
  const unevaluable = s.filter ? ruleUnevaluable(s.filter) : undefined;
  if (unevaluable) return { ...base, contacts_count: null, contacts_count_capped: false, filter_error: unevaluable };
  const n = await segmentContactsCount(db, teamId, s, COUNT_CAP);
  return { ...base, contacts_count: n.count, contacts_count_capped: n.capped };
}

/** PostgreSQL time one segment's count may take in a list (GET /segments/:id counts without it). */
export const LIST_COUNT_MS = 1_000;

/**
 * The list; with `counts` (Mailroom's `?counts=true`) each item carries `contacts_count` as GET
 * /segments/:id counts it (members or filter matches, capped at COUNT_CAP), fixed lists included. A
 * count that takes longer than LIST_COUNT_MS (a rare filter over a very large team) is null with
 * `contacts_count_timed_out: true`: GET /segments/:id counts it.
 */
export async function segmentsList(db: Pool, teamId: string, page: PageQuery, counts = false) {
  const p = await segmentList(db, teamId, page);
  if (!counts) return { object: 'list' as const, has_more: p.has_more, data: p.data };
  const data = [];
  for (const s of p.data) {
    if (s.filter && ruleUnevaluable(s.filter)) {
      data.push({ ...s, contacts_count: null, contacts_count_capped: false });
      continue;
    }
    const n = await segmentContactsCountWithin(db, teamId, s, COUNT_CAP, LIST_COUNT_MS);
    data.push(
      n
        ? { ...s, contacts_count: n.count, contacts_count_capped: n.capped }
        : { ...s, contacts_count: null, contacts_count_capped: false, contacts_count_timed_out: true },
    );
  }
  return { object: 'list' as const, has_more: p.has_more, data };
}

/** Renames, and sets (or with null clears) the filter; a segment with members cannot take one. */
export async function segmentUpdate(db: Queryable, teamId: string, id: string, body: Record<string, unknown>) {
  const name = nameOf(body, false);
  const s = await segmentOf(db, teamId, id);
  if (body.filter !== undefined) {
    const filter = body.filter === null ? null : await filterOf(db, teamId, body.filter, s.id);
    if (filter && !s.filter && (await segmentHasMembers(db, s.id))) {
      throw invalidField(
        'filter',
        'this segment has members; a segment has either members or a filter. Remove its members, or create a new segment with the filter.',
      );
    }
    await segmentFilterSet(db, teamId, s.id, filter);
  }
  if (name !== undefined) await segmentRename(db, teamId, s.id, name);
  return { object: 'segment' as const, id: s.id };
}

export async function segmentRemove(
  db: Queryable,
  teamId: string,
  id: string,
  object: 'segment' | 'audience' = 'segment',
) {
  const s = await segmentOf(db, teamId, id, object === 'audience' ? 'Audience' : 'Segment');
  await segmentDelete(db, teamId, s.id);
  return { object, id: s.id, deleted: true };
}

/** `segments` of a contact body: `[{id}]` on the wire, `string[]` in the OpenAPI document; each the team's. */
export async function segmentRefs(db: Queryable, teamId: string, v: unknown, field = 'segments'): Promise<string[]> {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidField(field, 'must be an array of {id}.');
  const ids = v.map((x, i) => {
    const id = typeof x === 'string' ? x : (x as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || !isUuid(id))
      throw invalidField(field === 'segments' ? `segments[${i}].id` : field, 'must be a segment id.');
    return id.toLowerCase();
  });
  const found = await segmentsFindMany(db, teamId, ids);
  const known = new Set(found.map((s) => s.id));
  const unknown = ids.find((id) => !known.has(id));
  if (unknown)
    throw invalidField(field, `no ${field === 'audience_id' ? 'audience' : 'segment'} has the id ${shown(unknown)}.`);
  const filtered = found.find((s) => s.filter);
  if (filtered)
    throw invalidField(
      field,
      `the segment ${shown(filtered.id)} has a filter: its contacts are the ones matching it, it takes no members.`,
    );
  return [...new Set(ids)];
}

const noMembers = (s: SegmentRow) =>
  invalidField(
    'segment_id',
    `the segment ${shown(s.id)} has a filter: its contacts are the ones matching it, it takes no members.`,
  );

/** The segments the contact is a member of, and the filter segments it matches now; oldest first. */
export async function contactSegmentsList(db: Queryable, teamId: string, contactId: string) {
  const fixed = await segmentsOfContact(db, teamId, contactId);
  // A filter that cannot be evaluated (segmentGet shows why) matches nobody here, rather than failing the list.
  const filters = (await segmentsWithFilter(db, teamId)).filter((s) => !s.filter || !ruleUnevaluable(s.filter));
  const matched = await filterSegmentsMatching(db, teamId, contactId, filters);
  const data = [...fixed, ...filters.filter((s) => matched.has(s.id))].sort((a, b) =>
    a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1,
  );
  return { object: 'list' as const, has_more: false, data };
}

export async function contactSegmentAdd(db: Queryable, teamId: string, contactId: string, segmentId: string) {
  const s = await segmentOf(db, teamId, segmentId);
  if (s.filter) throw noMembers(s);
  await segmentMembersAdd(db, contactId, [s.id]);
  return { id: s.id };
}

export async function contactSegmentRemove(db: Queryable, teamId: string, contactId: string, segmentId: string) {
  const s = await segmentOf(db, teamId, segmentId);
  if (s.filter) throw noMembers(s);
  const removed = await segmentMemberRemove(db, contactId, s.id);
  if (!removed) throw new AppError('not_found', 'The contact is not in this segment.');
  return { id: s.id, audienceId: s.id, deleted: true };
}

export { segmentMembersAdd };
export type { Pool };

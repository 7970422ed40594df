// Segments (resend-compat 7.2; /audiences is the deprecated alias on the same rows): named lists of
// contacts. Membership: `segments` on POST /contacts ([{id}] or plain ids), /contacts/:id/segments,
// and the legacy audience-scoped contact routes. Lists here are fixed memberships; rule-based
// segments (a filter over contact fields) are not built yet and `filter` is refused by name.
import { AppError, invalidField, missingField, notFound } from '../errors.js';
import { shown } from '../emails/addresses.js';
import { isUuid } from '../lib/ids.js';
import type { Pool, Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  segmentDelete, segmentFind, segmentInsert, segmentList, segmentMemberRemove, segmentMembersAdd, segmentRename, segmentsFindMany, segmentsOfContact,
  type SegmentRow,
} from '../store/segments.js';

function nameOf(body: Record<string, unknown>, required: boolean): string | undefined {
  const v = body.name;
  if (v === undefined || v === null) {
    if (required) throw missingField('name');
    return undefined;
  }
  if (typeof v !== 'string' || !v.trim()) throw invalidField('name', 'must be a non-empty string.');
  if (v.length > 256 || /[\u0000-\u001f\u007f]/.test(v)) throw invalidField('name', 'must be at most 256 characters, without line breaks or control characters.');
  return v.trim();
}

/** The segment, or Resend's 404 in the words of the path used (Segment or Audience). */
export async function segmentOf(db: Queryable, teamId: string, id: string, what: 'Segment' | 'Audience' = 'Segment'): Promise<SegmentRow> {
  const s = isUuid(id) ? await segmentFind(db, teamId, id.toLowerCase()) : undefined;
  if (!s) throw notFound(what);
  return s;
}

export async function segmentCreate(db: Queryable, teamId: string, body: Record<string, unknown>, object: 'segment' | 'audience' = 'segment') {
  if (body.filter !== undefined && body.filter !== null) throw invalidField('filter', 'rule-based segments are not available on this server yet; create the segment and add contacts to it.');
  const s = await segmentInsert(db, teamId, nameOf(body, true)!);
  return { object, id: s.id, name: s.name };
}

export async function segmentGet(db: Queryable, teamId: string, id: string, object: 'segment' | 'audience' = 'segment') {
  const s = await segmentOf(db, teamId, id, object === 'audience' ? 'Audience' : 'Segment');
  return { object, id: s.id, name: s.name, created_at: s.created_at };
}

export async function segmentsList(db: Queryable, teamId: string, page: PageQuery) {
  const p = await segmentList(db, teamId, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data };
}

export async function segmentUpdate(db: Queryable, teamId: string, id: string, body: Record<string, unknown>) {
  if (body.filter !== undefined && body.filter !== null) throw invalidField('filter', 'rule-based segments are not available on this server yet.');
  const name = nameOf(body, false);
  const s = await segmentOf(db, teamId, id);
  if (name !== undefined) await segmentRename(db, teamId, s.id, name);
  return { object: 'segment' as const, id: s.id };
}

export async function segmentRemove(db: Queryable, teamId: string, id: string, object: 'segment' | 'audience' = 'segment') {
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
    if (typeof id !== 'string' || !isUuid(id)) throw invalidField(field === 'segments' ? `segments[${i}].id` : field, 'must be a segment id.');
    return id.toLowerCase();
  });
  const known = new Set((await segmentsFindMany(db, teamId, ids)).map((s) => s.id));
  const unknown = ids.find((id) => !known.has(id));
  if (unknown) throw invalidField(field, `no ${field === 'audience_id' ? 'audience' : 'segment'} has the id ${shown(unknown)}.`);
  return [...new Set(ids)];
}

export async function contactSegmentsList(db: Queryable, teamId: string, contactId: string) {
  return { object: 'list' as const, has_more: false, data: await segmentsOfContact(db, teamId, contactId) };
}

export async function contactSegmentAdd(db: Queryable, teamId: string, contactId: string, segmentId: string) {
  const s = await segmentOf(db, teamId, segmentId);
  await segmentMembersAdd(db, contactId, [s.id]);
  return { id: s.id };
}

export async function contactSegmentRemove(db: Queryable, teamId: string, contactId: string, segmentId: string) {
  const s = await segmentOf(db, teamId, segmentId);
  const removed = await segmentMemberRemove(db, contactId, s.id);
  if (!removed) throw new AppError('not_found', 'The contact is not in this segment.');
  return { id: s.id, audienceId: s.id, deleted: true };
}

export { segmentMembersAdd };
export type { Pool };

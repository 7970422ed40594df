// Segments and their members. Every query is keyed by the team.
import type { Rule } from '../lib/filter-rule.js';
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

/** `filter`: the normal form of contacts/filter.ts, or null for a fixed list of members. */
export interface SegmentRow {
  id: string;
  name: string;
  filter: Rule | null;
  created_at: string;
}
const COLUMNS = 'id, name, filter, created_at::text AS created_at';

export async function segmentInsert(
  db: Queryable,
  teamId: string,
  name: string,
  filter: Rule | null = null,
): Promise<SegmentRow> {
  const { rows } = await db.query<SegmentRow>(
    `INSERT INTO segments (id, team_id, name, filter) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [uuid(), teamId, name, filter && JSON.stringify(filter)],
  );
  return rows[0];
}

/** Sets or clears (null) the filter. */
export async function segmentFilterSet(
  db: Queryable,
  teamId: string,
  id: string,
  filter: Rule | null,
): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE segments SET filter = $3 WHERE team_id = $1 AND id = $2', [
    teamId,
    id,
    filter && JSON.stringify(filter),
  ]);
  return Boolean(rowCount);
}

export async function segmentHasMembers(db: Queryable, segmentId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM contact_segments WHERE segment_id = $1 LIMIT 1', [segmentId]);
  return Boolean(rowCount);
}

export async function segmentFind(db: Queryable, teamId: string, id: string): Promise<SegmentRow | undefined> {
  const { rows } = await db.query<SegmentRow>(`SELECT ${COLUMNS} FROM segments WHERE team_id = $1 AND id = $2`, [
    teamId,
    id,
  ]);
  return rows[0];
}

export async function segmentsFindMany(db: Queryable, teamId: string, ids: string[]): Promise<SegmentRow[]> {
  const { rows } = await db.query<SegmentRow>(
    `SELECT ${COLUMNS} FROM segments WHERE team_id = $1 AND id = ANY($2::uuid[])`,
    [teamId, ids],
  );
  return rows;
}

export function segmentList(db: Queryable, teamId: string, page: PageQuery): Promise<Page<SegmentRow>> {
  return paginate<SegmentRow>(db, { table: 'segments', columns: COLUMNS, teamId, page });
}

export async function segmentRename(db: Queryable, teamId: string, id: string, name: string): Promise<boolean> {
  const { rowCount } = await db.query('UPDATE segments SET name = $3 WHERE team_id = $1 AND id = $2', [
    teamId,
    id,
    name,
  ]);
  return Boolean(rowCount);
}

export async function segmentDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM segments WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

/** The team's filter segments (to tell which a contact matches). */
export async function segmentsWithFilter(db: Queryable, teamId: string): Promise<SegmentRow[]> {
  const { rows } = await db.query<SegmentRow>(
    `SELECT ${COLUMNS} FROM segments WHERE team_id = $1 AND filter IS NOT NULL ORDER BY created_at, id LIMIT 500`,
    [teamId],
  );
  return rows;
}

/** Adds the contact to segments of the team (already a member: nothing changes). */
export async function segmentMembersAdd(db: Queryable, contactId: string, segmentIds: string[]): Promise<void> {
  if (!segmentIds.length) return;
  await db.query(
    `INSERT INTO contact_segments (contact_id, segment_id) SELECT $1, s FROM unnest($2::uuid[]) AS s ON CONFLICT DO NOTHING`,
    [contactId, segmentIds],
  );
}

export async function segmentMemberRemove(db: Queryable, contactId: string, segmentId: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM contact_segments WHERE contact_id = $1 AND segment_id = $2', [
    contactId,
    segmentId,
  ]);
  return Boolean(rowCount);
}

/** A contact's fixed-list segments, oldest first (filter segments: segment-contacts.ts). */
export async function segmentsOfContact(db: Queryable, teamId: string, contactId: string): Promise<SegmentRow[]> {
  const { rows } = await db.query<SegmentRow>(
    `SELECT s.id, s.name, s.filter, s.created_at::text AS created_at FROM contact_segments cs JOIN segments s ON s.id = cs.segment_id
     WHERE cs.contact_id = $2 AND s.team_id = $1 ORDER BY s.created_at, s.id`,
    [teamId, contactId],
  );
  return rows;
}

/** The ids of a contact's segments (for contact.* webhook data). */
export async function segmentIdsOfContact(db: Queryable, contactId: string): Promise<string[]> {
  const { rows } = await db.query<{ segment_id: string }>(
    'SELECT segment_id FROM contact_segments WHERE contact_id = $1 ORDER BY created_at',
    [contactId],
  );
  return rows.map((r) => r.segment_id);
}

// Bulk operations on contacts (contacts/bulk.ts): the contact_bulk_operations rows (migration 0065)
// and the set-based statements one batch runs, each on at most one batch of the team's contact ids.
// Every statement returns the contacts it changed, for their contact.* events.
import { uuid } from '../lib/ids.js';
import type { ContactRow } from './contacts.js';
import type { Queryable, Tx } from './db.js';
import type { WalkCursor } from './contact-search.js';

export const BULK_ACTIONS = [
  'add_to_segment',
  'remove_from_segment',
  'set_topic',
  'unsubscribe',
  'resubscribe',
  'delete',
] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];
export interface BulkParams {
  segment_id?: string;
  topic_id?: string;
  subscription?: 'opt_in' | 'opt_out';
}

export interface BulkRow {
  id: string;
  team_id: string;
  action: BulkAction;
  params: BulkParams;
  selection: Record<string, unknown>;
  status: 'queued' | 'running' | 'completed' | 'failed';
  matched: number;
  processed: number;
  changed: number;
  cursor: WalkCursor | null;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}
const COLUMNS = `id, team_id, action, params, selection, status, matched, processed, changed, cursor, error,
  created_at::text AS created_at, finished_at::text AS finished_at`;

export async function bulkInsert(
  db: Queryable,
  teamId: string,
  b: Pick<BulkRow, 'action' | 'params' | 'selection' | 'status' | 'matched'>,
): Promise<BulkRow> {
  const { rows } = await db.query<BulkRow>(
    `INSERT INTO contact_bulk_operations (id, team_id, action, params, selection, status, matched)
     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
    [uuid(), teamId, b.action, JSON.stringify(b.params), JSON.stringify(b.selection), b.status, b.matched],
  );
  return rows[0];
}

export async function bulkFind(
  db: Queryable,
  teamId: string | null,
  id: string,
  lock = false,
): Promise<BulkRow | undefined> {
  const { rows } = await db.query<BulkRow>(
    `SELECT ${COLUMNS} FROM contact_bulk_operations WHERE id = $1 AND ($2::uuid IS NULL OR team_id = $2)${lock ? ' FOR UPDATE' : ''}`,
    [id, teamId],
  );
  return rows[0];
}

/** Saves a batch's progress in the batch's own transaction. */
export async function bulkProgress(
  tx: Tx,
  id: string,
  p: { processed: number; changed: number; cursor: WalkCursor | null; status: BulkRow['status']; error?: string },
): Promise<void> {
  await tx.query(
    `UPDATE contact_bulk_operations SET processed = processed + $2, changed = changed + $3, cursor = coalesce($4, cursor),
       status = $5, error = $6, finished_at = CASE WHEN $5 IN ('completed', 'failed') THEN now() END WHERE id = $1`,
    [id, p.processed, p.changed, p.cursor && JSON.stringify(p.cursor), p.status, p.error ?? null],
  );
}

const ROW = `id, team_id, email, first_name, last_name, unsubscribed, properties,
  created_at::text AS created_at, created_at AS created_ts, updated_at AS updated_ts`;

/** Runs the action on the team's contacts among `ids`; returns the contacts it changed. */
export async function bulkApply(
  tx: Tx,
  teamId: string,
  action: BulkAction,
  p: BulkParams,
  ids: string[],
): Promise<ContactRow[]> {
  if (!ids.length) return [];
  switch (action) {
    case 'unsubscribe':
    case 'resubscribe': {
      const { rows } = await tx.query<ContactRow>(
        `UPDATE contacts SET unsubscribed = $3, updated_at = now()
         WHERE team_id = $1 AND id = ANY($2::uuid[]) AND unsubscribed <> $3 RETURNING ${ROW}`,
        [teamId, ids, action === 'unsubscribe'],
      );
      return rows;
    }
    case 'delete': {
      const { rows } = await tx.query<ContactRow>(
        `DELETE FROM contacts WHERE team_id = $1 AND id = ANY($2::uuid[]) RETURNING ${ROW}`,
        [teamId, ids],
      );
      return rows;
    }
    case 'add_to_segment':
    case 'remove_from_segment': {
      const changed =
        action === 'add_to_segment'
          ? `INSERT INTO contact_segments (contact_id, segment_id)
             SELECT c.id, $3::uuid FROM contacts c WHERE c.team_id = $1 AND c.id = ANY($2::uuid[]) ORDER BY c.id
             ON CONFLICT DO NOTHING RETURNING contact_id`
          : `DELETE FROM contact_segments cs USING contacts c
             WHERE cs.segment_id = $3::uuid AND cs.contact_id = c.id AND c.team_id = $1 AND c.id = ANY($2::uuid[]) RETURNING cs.contact_id`;
      const { rows } = await tx.query<ContactRow>(
        `WITH ch AS (${changed}) SELECT ${ROW} FROM contacts WHERE id IN (SELECT contact_id FROM ch)`,
        [teamId, ids, p.segment_id],
      );
      return rows;
    }
    case 'set_topic': {
      const { rows } = await tx.query<ContactRow>(
        `WITH ch AS (
           INSERT INTO contact_topics AS t (contact_id, topic_id, subscription)
           SELECT c.id, $3::uuid, $4 FROM contacts c WHERE c.team_id = $1 AND c.id = ANY($2::uuid[]) ORDER BY c.id
           ON CONFLICT (contact_id, topic_id) DO UPDATE SET subscription = EXCLUDED.subscription, updated_at = now()
           WHERE t.subscription <> EXCLUDED.subscription RETURNING contact_id)
         SELECT ${ROW} FROM contacts WHERE id IN (SELECT contact_id FROM ch)`,
        [teamId, ids, p.topic_id, p.subscription],
      );
      return rows;
    }
  }
}

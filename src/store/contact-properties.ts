// The team's custom contact properties (key, type, fallback value). Deleting one also removes its
// values from the team's contacts, in the same transaction.
import { uuid } from '../lib/ids.js';
import type { Queryable, Tx } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';
import type { PropertyValue } from './contacts.js';

export interface ContactPropertyRow {
  id: string;
  key: string;
  type: 'string' | 'number';
  fallback_value: PropertyValue | null;
  created_at: string;
}

const COLUMNS = 'id, key, type, fallback_value, created_at::text AS created_at';
const jsonOrNull = (v: PropertyValue | null): string | null => (v === null ? null : JSON.stringify(v)); // SQL NULL, not JSON null

/** Inserts the property unless the team has that key already (then undefined). */
export async function contactPropertyInsert(
  db: Queryable,
  teamId: string,
  p: Omit<ContactPropertyRow, 'id' | 'created_at'>,
): Promise<ContactPropertyRow | undefined> {
  const { rows } = await db.query<ContactPropertyRow>(
    `INSERT INTO contact_properties (id, team_id, key, type, fallback_value) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (team_id, key) DO NOTHING RETURNING ${COLUMNS}`,
    [uuid(), teamId, p.key, p.type, jsonOrNull(p.fallback_value)],
  );
  return rows[0];
}

export async function contactPropertyFindById(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<ContactPropertyRow | undefined> {
  const { rows } = await db.query<ContactPropertyRow>(
    `SELECT ${COLUMNS} FROM contact_properties WHERE team_id = $1 AND id = $2`,
    [teamId, id],
  );
  return rows[0];
}

/**
 * The properties with these keys (every property when `keys` is absent), oldest first. `share`
 * locks them until the transaction ends, so that a property cannot be deleted between the check
 * of a contact's values and their write.
 */
export async function contactPropertiesFind(
  db: Queryable,
  teamId: string,
  keys?: string[],
  share = false,
): Promise<ContactPropertyRow[]> {
  const { rows } = await db.query<ContactPropertyRow>(
    `SELECT ${COLUMNS} FROM contact_properties WHERE team_id = $1 ${keys ? 'AND key = ANY($2::text[])' : ''}
     ORDER BY created_at, id${share ? ' FOR SHARE' : ''}`,
    keys ? [teamId, keys] : [teamId],
  );
  return rows;
}

export async function contactPropertyList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
): Promise<Page<ContactPropertyRow>> {
  return paginate(db, { table: 'contact_properties', columns: COLUMNS, teamId, page });
}

export async function contactPropertyUpdateFallback(
  db: Queryable,
  teamId: string,
  id: string,
  fallback: PropertyValue | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE contact_properties SET fallback_value = $3 WHERE team_id = $1 AND id = $2',
    [teamId, id, jsonOrNull(fallback)],
  );
  return Boolean(rowCount);
}

/** Deletes the property and strips its key from the team's contacts. */
export async function contactPropertyDelete(tx: Tx, teamId: string, id: string): Promise<boolean> {
  const { rows } = await tx.query<{ key: string }>(
    'DELETE FROM contact_properties WHERE team_id = $1 AND id = $2 RETURNING key',
    [teamId, id],
  );
  if (!rows[0]) return false;
  await tx.query('UPDATE contacts SET properties = properties - $2 WHERE team_id = $1 AND properties ? $2', [
    teamId,
    rows[0].key,
  ]);
  return true;
}

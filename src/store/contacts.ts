// Contacts of a team, and their contact.* events. The events are rows of email_events (the webhook
// outbox, migration 0009) written in the caller's transaction, so a change and its event commit together.
import { uuid } from '../lib/ids.js';
import type { Queryable, Tx } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export type PropertyValue = string | number;

export interface ContactRow {
  id: string;
  team_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  properties: Record<string, PropertyValue>;
  created_at: string; // Postgres text form, for the API
  created_ts: Date; // the same instants as Dates, for webhook payloads (ISO)
  updated_ts: Date;
}

export type ContactFields = Pick<ContactRow, 'email' | 'first_name' | 'last_name' | 'unsubscribed' | 'properties'>;

const COLUMNS = `id, team_id, email, first_name, last_name, unsubscribed, properties,
  created_at::text AS created_at, created_at AS created_ts, updated_at AS updated_ts`;
export const CONTACT_LIST_COLUMNS = 'id, email, first_name, last_name, created_at::text AS created_at, unsubscribed';

/** Inserts the contact unless the team has that address already (then undefined). */
export async function contactInsert(tx: Tx, teamId: string, f: ContactFields): Promise<ContactRow | undefined> {
  const { rows } = await tx.query<ContactRow>(
    `INSERT INTO contacts (id, team_id, email, first_name, last_name, unsubscribed, properties) VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (team_id, email) DO NOTHING RETURNING ${COLUMNS}`,
    [uuid(), teamId, f.email, f.first_name, f.last_name, f.unsubscribed, JSON.stringify(f.properties)],
  );
  return rows[0];
}

/**
 * contactInsert for many bare contacts (an address each, nothing else) in one statement: those the
 * team has not got yet are created and returned; the others change nothing.
 */
export async function contactsInsertBare(tx: Tx, rows: { team_id: string; email: string }[]): Promise<ContactRow[]> {
  if (!rows.length) return [];
  const { rows: out } = await tx.query<ContactRow>(
    `INSERT INTO contacts (id, team_id, email, first_name, last_name, unsubscribed, properties)
     SELECT id, team_id, email, NULL, NULL, false, '{}'::jsonb FROM unnest($1::uuid[], $2::uuid[], $3::text[]) WITH ORDINALITY AS t (id, team_id, email, ord) ORDER BY ord
     ON CONFLICT (team_id, email) DO NOTHING RETURNING ${COLUMNS}`,
    [rows.map(() => uuid()), rows.map((r) => r.team_id), rows.map((r) => r.email)],
  );
  return out;
}

/** The ids of the contacts with these (team, address) pairs that exist. */
export async function contactIdsByEmail(
  db: Queryable,
  keys: { team_id: string; email: string }[],
): Promise<{ id: string; team_id: string; email: string }[]> {
  if (!keys.length) return [];
  const { rows } = await db.query(
    `SELECT x.id, x.team_id, x.email FROM unnest($1::uuid[], $2::text[]) AS k (team_id, email)
     CROSS JOIN LATERAL (SELECT c.id, c.team_id, c.email FROM contacts c WHERE c.team_id = k.team_id AND c.email = k.email OFFSET 0) x`,
    [keys.map((k) => k.team_id), keys.map((k) => k.email)],
  );
  return rows;
}

/** Full contact rows by id (any team: the ids come from the caller's own rows). */
export async function contactsByIds(db: Queryable, ids: string[]): Promise<ContactRow[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE id = ANY($1::uuid[])`, [ids]);
  return rows;
}

/** By id when `key` is a UUID, else by (lowercased) address; `lock` row-locks it for an update. */
export async function contactFind(
  db: Queryable,
  teamId: string,
  key: { id: string } | { email: string },
  lock = false,
): Promise<ContactRow | undefined> {
  const [cond, v] = 'id' in key ? ['id = $2::uuid', key.id] : ['email = $2', key.email];
  const { rows } = await db.query<ContactRow>(
    `SELECT ${COLUMNS} FROM contacts WHERE team_id = $1 AND ${cond}${lock ? ' FOR UPDATE' : ''}`,
    [teamId, v],
  );
  return rows[0];
}

/** Writes every field; throws the unique violation `contacts_team_id_email_key` if the address is taken. */
export async function contactUpdate(tx: Tx, teamId: string, id: string, f: ContactFields): Promise<ContactRow> {
  const { rows } = await tx.query<ContactRow>(
    `UPDATE contacts SET email = $3, first_name = $4, last_name = $5, unsubscribed = $6, properties = $7, updated_at = now()
     WHERE team_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [teamId, id, f.email, f.first_name, f.last_name, f.unsubscribed, JSON.stringify(f.properties)],
  );
  return rows[0];
}

export async function contactDelete(
  tx: Tx,
  teamId: string,
  key: { id: string } | { email: string },
): Promise<ContactRow | undefined> {
  const [cond, v] = 'id' in key ? ['id = $2::uuid', key.id] : ['email = $2', key.email];
  const { rows } = await tx.query<ContactRow>(
    `DELETE FROM contacts WHERE team_id = $1 AND ${cond} RETURNING ${COLUMNS}`,
    [teamId, v],
  );
  return rows[0];
}

/** The team's contacts (a segment's: segment-contacts.ts). */
export async function contactList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
): Promise<Page<Omit<ContactRow, 'team_id' | 'properties' | 'created_ts' | 'updated_ts'>>> {
  return paginate(db, { table: 'contacts', columns: CONTACT_LIST_COLUMNS, teamId, page });
}

/** Records a contact.* event (the webhook `data` as given) in the caller's transaction. */
export async function contactEventInsert(
  tx: Tx,
  teamId: string,
  contactId: string,
  type: string,
  data: Record<string, unknown>,
): Promise<void> {
  await tx.query(
    'INSERT INTO email_events (id, email_id, team_id, type, recipient, data) VALUES ($1, $2, $3, $4, NULL, $5)',
    [uuid(), contactId, teamId, type, JSON.stringify(data)],
  );
}

/**
 * contactEventInsert for many contacts in one statement. `data.segment_ids` and `data.audience_id`
 * are those of the contact's segments read in the same statement (what recordEvent reads first).
 */
export async function contactEventsInsertWithSegments(
  tx: Tx,
  rows: { teamId: string; contactId: string; type: string; data: Record<string, unknown> }[],
): Promise<void> {
  if (!rows.length) return;
  await tx.query(
    `INSERT INTO email_events (id, email_id, team_id, type, recipient, data)
     SELECT t.id, t.contact_id, t.team_id, t.type, NULL, t.data || jsonb_build_object('segment_ids', coalesce(s.ids, '[]'::jsonb), 'audience_id', s.ids->0)
     FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::jsonb[]) WITH ORDINALITY AS t (id, contact_id, team_id, type, data, ord)
     LEFT JOIN LATERAL (SELECT jsonb_agg(cs.segment_id ORDER BY cs.created_at) AS ids FROM contact_segments cs WHERE cs.contact_id = t.contact_id) s ON true
     ORDER BY t.ord`,
    [
      rows.map(() => uuid()),
      rows.map((r) => r.contactId),
      rows.map((r) => r.teamId),
      rows.map((r) => r.type),
      rows.map((r) => JSON.stringify(r.data)),
    ],
  );
}

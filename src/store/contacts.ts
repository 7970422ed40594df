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

/** By id when `key` is a UUID, else by (lowercased) address; `lock` row-locks it for an update. */
export async function contactFind(db: Queryable, teamId: string, key: { id: string } | { email: string }, lock = false): Promise<ContactRow | undefined> {
  const [cond, v] = 'id' in key ? ['id = $2::uuid', key.id] : ['email = $2', key.email];
  const { rows } = await db.query<ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE team_id = $1 AND ${cond}${lock ? ' FOR UPDATE' : ''}`, [teamId, v]);
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

export async function contactDelete(tx: Tx, teamId: string, key: { id: string } | { email: string }): Promise<ContactRow | undefined> {
  const [cond, v] = 'id' in key ? ['id = $2::uuid', key.id] : ['email = $2', key.email];
  const { rows } = await tx.query<ContactRow>(`DELETE FROM contacts WHERE team_id = $1 AND ${cond} RETURNING ${COLUMNS}`, [teamId, v]);
  return rows[0];
}

/** The team's contacts (a segment's: segment-contacts.ts). */
export async function contactList(db: Queryable, teamId: string, page: PageQuery): Promise<Page<Omit<ContactRow, 'team_id' | 'properties' | 'created_ts' | 'updated_ts'>>> {
  return paginate(db, { table: 'contacts', columns: CONTACT_LIST_COLUMNS, teamId, page });
}

/** Records a contact.* event (the webhook `data` as given) in the caller's transaction. */
export async function contactEventInsert(tx: Tx, teamId: string, contactId: string, type: string, data: Record<string, unknown>): Promise<void> {
  await tx.query(
    'INSERT INTO email_events (id, email_id, team_id, type, recipient, data) VALUES ($1, $2, $3, $4, NULL, $5)',
    [uuid(), contactId, teamId, type, JSON.stringify(data)],
  );
}

// Custom events (POST /events/send) and their definitions (POST /events): every query keyed by the
// team. Not an email's lifecycle events: those are email_events (store/emails.ts, src/events/).
import { uuid } from '../lib/ids.js';
import type { Queryable, Tx } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export type CustomEventFieldType = 'string' | 'number' | 'boolean' | 'date';
export type CustomEventSchema = Record<string, CustomEventFieldType>;

export interface CustomEventDefinitionRow {
  id: string; name: string; schema: CustomEventSchema | null; created_at: string; updated_at: string | null;
}
const DEFINITION_COLUMNS = 'id, name, schema, created_at::text AS created_at, updated_at::text AS updated_at';

export interface CustomEventRow {
  id: string; name: string; contact_id: string | null; email: string; payload: Record<string, unknown>; created_at: string;
}
const EVENT_COLUMNS = 'id, name, contact_id, email, payload, created_at::text AS created_at';

/** Inserts the definition unless the team has one of that name already (then undefined). */
export async function customEventDefinitionInsert(db: Queryable, teamId: string, name: string, schema: CustomEventSchema | null): Promise<CustomEventDefinitionRow | undefined> {
  const { rows } = await db.query<CustomEventDefinitionRow>(
    `INSERT INTO custom_event_definitions (id, team_id, name, schema) VALUES ($1, $2, $3, $4)
     ON CONFLICT (team_id, name) DO NOTHING RETURNING ${DEFINITION_COLUMNS}`,
    [uuid(), teamId, name, schema === null ? null : JSON.stringify(schema)]);
  return rows[0];
}

/** By id when `key` has one, else by exact name. */
export async function customEventDefinitionFind(db: Queryable, teamId: string, key: { id: string } | { name: string }): Promise<CustomEventDefinitionRow | undefined> {
  const [cond, v] = 'id' in key ? ['id = $2::uuid', key.id] : ['name = $2', key.name];
  const { rows } = await db.query<CustomEventDefinitionRow>(`SELECT ${DEFINITION_COLUMNS} FROM custom_event_definitions WHERE team_id = $1 AND ${cond}`, [teamId, v]);
  return rows[0];
}

export function customEventDefinitionList(db: Queryable, teamId: string, page: PageQuery): Promise<Page<CustomEventDefinitionRow>> {
  return paginate<CustomEventDefinitionRow>(db, { table: 'custom_event_definitions', columns: DEFINITION_COLUMNS, teamId, page });
}

export async function customEventDefinitionUpdateSchema(db: Queryable, teamId: string, id: string, schema: CustomEventSchema | null): Promise<CustomEventDefinitionRow | undefined> {
  const { rows } = await db.query<CustomEventDefinitionRow>(
    `UPDATE custom_event_definitions SET schema = $3, updated_at = now() WHERE team_id = $1 AND id = $2 RETURNING ${DEFINITION_COLUMNS}`,
    [teamId, id, schema === null ? null : JSON.stringify(schema)]);
  return rows[0];
}

export async function customEventDefinitionDelete(db: Queryable, teamId: string, id: string): Promise<CustomEventDefinitionRow | undefined> {
  const { rows } = await db.query<CustomEventDefinitionRow>(`DELETE FROM custom_event_definitions WHERE team_id = $1 AND id = $2 RETURNING ${DEFINITION_COLUMNS}`, [teamId, id]);
  return rows[0];
}

/**
 * What recording an event needs, in one round trip: the schema the team declared for `name` (null
 * if none) and the contact it is about (by id, else by address; null if the team has none).
 */
export async function customEventContextFind(db: Queryable, teamId: string, name: string, subject: { contactId: string } | { email: string }): Promise<{ schema: CustomEventSchema | null; contact: { id: string; email: string } | null }> {
  const [id, email] = 'contactId' in subject ? [subject.contactId, null] : [null, subject.email];
  const { rows } = await db.query<{ schema: CustomEventSchema | null; contact_id: string | null; contact_email: string | null }>(
    `SELECT (SELECT schema FROM custom_event_definitions WHERE team_id = $1 AND name = $2) AS schema, c.id AS contact_id, c.email AS contact_email
     FROM (SELECT 1) AS one
     LEFT JOIN contacts c ON c.team_id = $1 AND (($3::uuid IS NOT NULL AND c.id = $3::uuid) OR ($3::uuid IS NULL AND c.email = $4::text))`,
    [teamId, name, id, email]);
  const r = rows[0];
  return { schema: r.schema, contact: r.contact_id ? { id: r.contact_id, email: r.contact_email! } : null };
}

/** One event by id, with its team (the system-event job's look-up). */
export async function customEventFindById(db: Queryable, id: string): Promise<(CustomEventRow & { team_id: string }) | undefined> {
  const { rows } = await db.query<CustomEventRow & { team_id: string }>(`SELECT team_id, ${EVENT_COLUMNS} FROM custom_events WHERE id = $1`, [id]);
  return rows[0];
}

/** Records one custom event in the caller's transaction. */
export async function customEventInsert(tx: Tx, teamId: string, e: { name: string; contact_id: string | null; email: string; payload: Record<string, unknown> }): Promise<CustomEventRow> {
  const { rows } = await tx.query<CustomEventRow>(
    `INSERT INTO custom_events (id, team_id, name, contact_id, email, payload) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${EVENT_COLUMNS}`,
    [uuid(), teamId, e.name, e.contact_id, e.email, JSON.stringify(e.payload)]);
  return rows[0];
}

/** A contact's history, newest first: its own events and those sent for its address while it had no row. */
export function customEventListByContact(db: Queryable, teamId: string, contact: { id: string; email: string }, page: PageQuery): Promise<Page<CustomEventRow>> {
  return paginate<CustomEventRow>(db, {
    table: 'custom_events', columns: EVENT_COLUMNS, teamId, page,
    where: 'contact_id = $1 OR (contact_id IS NULL AND email = $2)', params: [contact.id, contact.email],
  });
}

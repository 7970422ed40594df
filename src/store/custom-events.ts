// Custom events (POST /events/send) and their definitions (POST /events): every query keyed by the
// team. Not an email's lifecycle events: those are email_events (store/emails.ts, src/events/).
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';
import type { IdempotencyCompletion } from './emails.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export type CustomEventFieldType = 'string' | 'number' | 'boolean' | 'date';
export type CustomEventSchema = Record<string, CustomEventFieldType>;

export interface CustomEventDefinitionRow {
  id: string;
  name: string;
  schema: CustomEventSchema | null;
  created_at: string;
  updated_at: string | null;
}
const DEFINITION_COLUMNS = 'id, name, schema, created_at::text AS created_at, updated_at::text AS updated_at';

export interface CustomEventRow {
  id: string;
  name: string;
  contact_id: string | null;
  email: string;
  payload: Record<string, unknown>;
  created_at: string;
}
const EVENT_COLUMNS = 'id, name, contact_id, email, payload, created_at::text AS created_at';

/** Inserts the definition unless the team has one of that name already (then undefined). */
export async function customEventDefinitionInsert(
  db: Queryable,
  teamId: string,
  name: string,
  schema: CustomEventSchema | null,
): Promise<CustomEventDefinitionRow | undefined> {
  const { rows } = await db.query<CustomEventDefinitionRow>(
    `INSERT INTO custom_event_definitions (id, team_id, name, schema) VALUES ($1, $2, $3, $4)
     ON CONFLICT (team_id, name) DO NOTHING RETURNING ${DEFINITION_COLUMNS}`,
    [uuid(), teamId, name, schema === null ? null : JSON.stringify(schema)],
  );
  return rows[0];
}

/** By id when `key` has one, else by exact name. */
export async function customEventDefinitionFind(
  db: Queryable,
  teamId: string,
  key: { id: string } | { name: string },
): Promise<CustomEventDefinitionRow | undefined> {
  const [cond, v] = 'id' in key ? ['id = $2::uuid', key.id] : ['name = $2', key.name];
  const { rows } = await db.query<CustomEventDefinitionRow>(
    `SELECT ${DEFINITION_COLUMNS} FROM custom_event_definitions WHERE team_id = $1 AND ${cond}`,
    [teamId, v],
  );
  return rows[0];
}

export function customEventDefinitionList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
): Promise<Page<CustomEventDefinitionRow>> {
  return paginate<CustomEventDefinitionRow>(db, {
    table: 'custom_event_definitions',
    columns: DEFINITION_COLUMNS,
    teamId,
    page,
  });
}

export async function customEventDefinitionUpdateSchema(
  db: Queryable,
  teamId: string,
  id: string,
  schema: CustomEventSchema | null,
): Promise<CustomEventDefinitionRow | undefined> {
  const { rows } = await db.query<CustomEventDefinitionRow>(
    `UPDATE custom_event_definitions SET schema = $3, updated_at = now() WHERE team_id = $1 AND id = $2 RETURNING ${DEFINITION_COLUMNS}`,
    [teamId, id, schema === null ? null : JSON.stringify(schema)],
  );
  return rows[0];
}

export async function customEventDefinitionDelete(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<CustomEventDefinitionRow | undefined> {
  const { rows } = await db.query<CustomEventDefinitionRow>(
    `DELETE FROM custom_event_definitions WHERE team_id = $1 AND id = $2 RETURNING ${DEFINITION_COLUMNS}`,
    [teamId, id],
  );
  return rows[0];
}

export interface CustomEventContextAsk {
  teamId: string;
  name: string;
  subject: { contactId: string } | { email: string };
}

/**
 * What recording each event needs, in one round trip for the events of concurrent requests (in
 * order): the schema the team declared for its name (null if none) and the contact it is about (by
 * id, else by address; null if the team has none).
 */
export async function customEventContextFindMany(
  db: Queryable,
  asks: CustomEventContextAsk[],
): Promise<{ schema: CustomEventSchema | null; contact: { id: string; email: string } | null }[]> {
  const rows = asks.map((a, n) => ({
    n,
    team_id: a.teamId,
    name: a.name,
    contact_id: 'contactId' in a.subject ? a.subject.contactId : null,
    email: 'email' in a.subject ? a.subject.email : null,
  }));
  const { rows: out } = await db.query<{
    n: number;
    schema: CustomEventSchema | null;
    contact_id: string | null;
    contact_email: string | null;
  }>(
    `SELECT i.n, (SELECT d.schema FROM custom_event_definitions d WHERE d.team_id = i.team_id AND d.name = i.name) AS schema,
            coalesce(c1.id, c2.id) AS contact_id, coalesce(c1.email, c2.email) AS contact_email
     FROM json_to_recordset($1::json) AS i (n int, team_id uuid, name text, contact_id uuid, email text)
     LEFT JOIN contacts c1 ON i.contact_id IS NOT NULL AND c1.team_id = i.team_id AND c1.id = i.contact_id
     LEFT JOIN contacts c2 ON i.contact_id IS NULL AND c2.team_id = i.team_id AND c2.email = i.email`,
    [JSON.stringify(rows)],
  );
  const byN = new Map(out.map((r) => [r.n, r]));
  return asks.map((_, n) => {
    const r = byN.get(n)!;
    return { schema: r.schema, contact: r.contact_id ? { id: r.contact_id, email: r.contact_email! } : null };
  });
}

/** Records one custom event in the caller's transaction. */
export interface CustomEventNew {
  team_id: string;
  name: string;
  contact_id: string | null;
  email: string;
  payload: Record<string, unknown>;
}

/**
 * Records many custom events in one statement (one commit for concurrent POST /events/send calls),
 * completes their idempotency keys, and queues for the automations those that an automation of the
 * team listens for (an enabled trigger of that name, or a wait for it), arming the automations.event
 * job (automations_wake, migration 0025). Returns the rows in input order.
 */
export async function customEventsInsertBatch(
  db: Queryable,
  events: CustomEventNew[],
  completions: IdempotencyCompletion[],
): Promise<CustomEventRow[]> {
  const rows = events.map((e) => ({ ...e, id: uuid() }));
  await db.query(
    `WITH ins AS (
       INSERT INTO custom_events (id, team_id, name, contact_id, email, payload)
       SELECT r.id, r.team_id, r.name, r.contact_id, r.email, coalesce(r.payload, '{}') FROM json_populate_recordset(NULL::custom_events, $1::json) WITH ORDINALITY AS r
       ORDER BY r.ordinality
       RETURNING id, team_id, name),
     q AS (
       INSERT INTO automation_event_queue (event_id)
       SELECT i.id FROM ins i
       WHERE EXISTS (SELECT 1 FROM automations a WHERE a.team_id = i.team_id AND ((a.status = 'enabled' AND a.trigger_event = i.name) OR i.name = ANY (a.waits)))
       RETURNING seq),
     k AS (
       UPDATE idempotency_keys ik SET state = 'done', response_status = c.response_status, response_body = c.response_body
       FROM json_to_recordset($2::json) AS c (team_id uuid, method text, path text, key text, response_status int, response_body jsonb)
       WHERE ik.team_id = c.team_id AND ik.method = c.method AND ik.path = c.path AND ik.key = c.key)
     SELECT (SELECT count(*) FROM ins) AS n, CASE WHEN EXISTS (SELECT 1 FROM q) THEN automations_wake() END AS woke`,
    [JSON.stringify(rows), JSON.stringify(completions)],
  );
  const now = new Date().toISOString();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    contact_id: r.contact_id,
    email: r.email,
    payload: r.payload,
    created_at: now,
  }));
}

/** A contact's history, newest first: its own events and those sent for its address while it had no row. */
export function customEventListByContact(
  db: Queryable,
  teamId: string,
  contact: { id: string; email: string },
  page: PageQuery,
): Promise<Page<CustomEventRow>> {
  return paginate<CustomEventRow>(db, {
    table: 'custom_events',
    columns: EVENT_COLUMNS,
    teamId,
    page,
    where: 'contact_id = $1 OR (contact_id IS NULL AND email = $2)',
    params: [contact.id, contact.email],
  });
}

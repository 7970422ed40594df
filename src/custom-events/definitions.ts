// Custom event definitions (/events, /events/:id_or_name; resend-compat 8.2): a name unique per
// team and an optional schema that POST /events/send checks payloads against. Deleting one keeps
// the events already recorded under its name.
import { invalidField, missingField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  customEventDefinitionDelete,
  customEventDefinitionFind,
  customEventDefinitionInsert,
  customEventDefinitionList,
  customEventDefinitionUpdateSchema,
  type CustomEventDefinitionRow,
} from '../store/custom-events.js';
import { customEventDefinitionName, customEventSchemaOf } from './schema.js';

const summary = (d: CustomEventDefinitionRow) => ({
  id: d.id,
  name: d.name,
  schema: d.schema,
  created_at: d.created_at,
  updated_at: d.updated_at,
});

/** By id (a UUID) or exact name; the path segment arrives decoded. */
async function find(db: Queryable, teamId: string, idOrName: string): Promise<CustomEventDefinitionRow> {
  const d = await customEventDefinitionFind(
    db,
    teamId,
    isUuid(idOrName) ? { id: idOrName.toLowerCase() } : { name: idOrName },
  );
  if (!d) throw notFound('Event');
  return d;
}

export async function customEventDefinitionCreate(db: Queryable, teamId: string, body: Record<string, unknown>) {
  const name = customEventDefinitionName(body.name);
  const d = await customEventDefinitionInsert(db, teamId, name, customEventSchemaOf(body.schema));
  if (!d) throw invalidField('name', `an event named "${name.slice(0, 100)}" already exists.`);
  return { object: 'event' as const, id: d.id };
}

export const customEventDefinitionGet = async (db: Queryable, teamId: string, idOrName: string) => ({
  object: 'event' as const,
  ...summary(await find(db, teamId, idOrName)),
});

export async function customEventDefinitionsList(db: Queryable, teamId: string, page: PageQuery) {
  const p = await customEventDefinitionList(db, teamId, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(summary) };
}

/** PATCH: `schema` is required; null clears it. */
export async function customEventDefinitionChange(
  db: Queryable,
  teamId: string,
  idOrName: string,
  body: Record<string, unknown>,
) {
  if (body.schema === undefined) throw missingField('schema');
  if (body.name !== undefined && body.name !== null)
    throw invalidField('name', 'cannot be changed; create a new event instead.');
  const schema = customEventSchemaOf(body.schema);
  const d = await customEventDefinitionUpdateSchema(db, teamId, (await find(db, teamId, idOrName)).id, schema);
  if (!d) throw notFound('Event');
  return { object: 'event' as const, id: d.id };
}

export async function customEventDefinitionRemove(db: Queryable, teamId: string, idOrName: string) {
  const d = await customEventDefinitionDelete(db, teamId, (await find(db, teamId, idOrName)).id);
  if (!d) throw notFound('Event');
  return { object: 'event' as const, id: d.id, deleted: true };
}

// The form fields of POST /contacts/imports besides the file: `column_map`, `on_conflict`,
// `segments`, `topics` (each a JSON string, as the SDKs send them), checked against the team's
// properties, segments and topics when the file is uploaded. Reading the CSV is import-rows.ts's job.
import { invalidField } from '../errors.js';
import { shown } from '../mime/addresses.js';
import type { Queryable } from '../store/db.js';
import { contactPropertiesFind } from '../store/contact-properties.js';
import { segmentRefs } from './segments.js';
import { topicChoices } from './topics.js';

export type ContactField = 'email' | 'first_name' | 'last_name' | 'unsubscribed';
export const CONTACT_FIELDS: readonly ContactField[] = ['email', 'first_name', 'last_name', 'unsubscribed'];

/** Which CSV column (by header name) holds what; fields absent here are found by their own name. */
export interface ColumnMap {
  fields: Partial<Record<ContactField, string>>;
  properties: Record<string, string>; // property key -> column
}

export interface ImportOptions {
  columns: ColumnMap;
  on_conflict: 'upsert' | 'skip';
  segments: string[];
  topics: { id: string; subscription: 'opt_in' | 'opt_out' }[];
}

// The SDK's camelCase names are accepted too (it converts them, other clients may not).
const FIELD_ALIASES: Record<string, ContactField> = {
  email: 'email',
  first_name: 'first_name',
  firstName: 'first_name',
  last_name: 'last_name',
  lastName: 'last_name',
  unsubscribed: 'unsubscribed',
};

function json(field: string, v: string | undefined): unknown {
  if (v === undefined || v.trim() === '') return undefined;
  try {
    return JSON.parse(v);
  } catch {
    throw invalidField(field, 'must be a JSON string.');
  }
}

function columnName(field: string, v: unknown): string {
  if (typeof v !== 'string' || !v.trim() || v.length > 256)
    throw invalidField(field, 'must be the name of a CSV column (1-256 characters).');
  return v;
}

/**
 * `{email, first_name, last_name, unsubscribed: "Column", properties: {key: {column, type?} | "Column"}}`
 * (the SDK's shape), and `"properties.key": "Column"` as a flat alternative.
 */
function columnMapOf(v: unknown): { map: ColumnMap; types: Record<string, string | undefined> } {
  const map: ColumnMap = { fields: {}, properties: Object.create(null) };
  const types: Record<string, string | undefined> = Object.create(null);
  if (v === undefined || v === null) return { map, types };
  if (typeof v !== 'object' || Array.isArray(v))
    throw invalidField('column_map', 'must be a JSON object mapping fields to CSV column names.');
  const addProperty = (key: string, m: unknown) => {
    const where = `column_map.properties.${key}`;
    if (typeof m === 'string') map.properties[key] = columnName(where, m);
    else if (m !== null && typeof m === 'object' && !Array.isArray(m)) {
      map.properties[key] = columnName(`${where}.column`, (m as { column?: unknown }).column);
      types[key] = (m as { type?: string }).type ?? undefined;
    } else throw invalidField(where, 'must be a column name or {column, type}.');
  };
  for (const [k, x] of Object.entries(v)) {
    if (x === undefined || x === null) continue;
    if (k === 'properties') {
      if (typeof x !== 'object' || Array.isArray(x))
        throw invalidField('column_map.properties', 'must be an object of property keys.');
      for (const [p, m] of Object.entries(x)) if (m !== undefined && m !== null) addProperty(p, m);
    } else if (k.startsWith('properties.')) addProperty(k.slice('properties.'.length), x);
    else if (Object.hasOwn(FIELD_ALIASES, k)) map.fields[FIELD_ALIASES[k]] = columnName(`column_map.${k}`, x);
    else
      throw invalidField(
        'column_map',
        `${shown(k)} is not a contact field; use email, first_name, last_name, unsubscribed or properties.`,
      );
  }
  return { map, types };
}

/** Checks the form fields; throws a 422 naming the field at fault. */
export async function importOptions(
  db: Queryable,
  teamId: string,
  form: Record<string, string | undefined>,
): Promise<ImportOptions> {
  const known = new Set(['column_map', 'on_conflict', 'segments', 'topics']);
  const stray = Object.keys(form).find((k) => !known.has(k));
  if (stray)
    throw invalidField(
      stray,
      'is not a field of a contact import; send file, column_map, on_conflict, segments and topics.',
    );
  const onConflict = form.on_conflict?.trim() || 'skip';
  if (onConflict !== 'upsert' && onConflict !== 'skip')
    throw invalidField('on_conflict', 'must be "upsert" or "skip".');
  const { map, types } = columnMapOf(json('column_map', form.column_map));
  const keys = Object.keys(map.properties);
  if (keys.length) {
    const defs = new Map((await contactPropertiesFind(db, teamId, keys)).map((d) => [d.key, d.type]));
    for (const k of keys) {
      const type = defs.get(k);
      if (!type)
        throw invalidField(
          'column_map',
          `the property ${shown(k)} does not exist; create it first with POST /contact-properties.`,
        );
      const want = types[k];
      if (want === 'boolean')
        throw invalidField(
          'column_map',
          `the property ${shown(k)}: boolean properties do not exist on this server (properties are strings or numbers).`,
        );
      if (want !== undefined && want !== type)
        throw invalidField('column_map', `the property ${shown(k)} is a ${type}, not a ${shown(String(want))}.`);
    }
  }
  return {
    columns: map,
    on_conflict: onConflict,
    segments: await segmentRefs(db, teamId, json('segments', form.segments)),
    topics: await topicChoices(db, teamId, json('topics', form.topics)),
  };
}

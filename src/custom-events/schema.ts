// The checks of custom events: names (the `resend:` prefix is reserved for Mailroom's own events),
// definition schemas ({field: "string"|"number"|"boolean"|"date"}) and the coercion of a payload
// against a schema. Pure functions: no database. Errors name the field (`payload.plan`).
import { invalidField, missingField } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { JSON_FIELD_BOUNDS, jsonBoundsExceeded } from '../lib/json-bounds.js';
import type { CustomEventFieldType, CustomEventSchema } from '../store/custom-events.js';

export const RESERVED_PREFIX = 'resend:';
const FIELD_TYPES: readonly CustomEventFieldType[] = ['string', 'number', 'boolean', 'date'];
const MAX_NAME = 255;
const MAX_SCHEMA_FIELDS = 100;
const MAX_FIELD_NAME = 100;

/** An event name as given (exact, case-sensitive); `field` is `event` on send, `name` on definitions. */
export function customEventName(v: unknown, field: 'event' | 'name'): string {
  if (v === undefined || v === null || v === '') throw missingField(field);
  if (typeof v !== 'string' || !v.trim()) throw invalidField(field, 'must be a non-empty string.');
  if (v.length > MAX_NAME) throw invalidField(field, `must be at most ${MAX_NAME} characters.`);
  if (/[\u0000-\u001f\u007f]/.test(v)) throw invalidField(field, 'must not contain line breaks or control characters.');
  if (v.toLowerCase().startsWith(RESERVED_PREFIX))
    throw invalidField(field, `names starting with \`${RESERVED_PREFIX}\` are reserved for Mailroom's own events.`);
  return v;
}

/** A definition's name: also never a UUID, so `/events/:id_or_name` is never ambiguous. */
export function customEventDefinitionName(v: unknown): string {
  const name = customEventName(v, 'name');
  if (isUuid(name)) throw invalidField('name', 'must not be a UUID (definitions are looked up by id or name).');
  return name;
}

/** `{field: type}` or null (no schema). */
export function customEventSchemaOf(v: unknown): CustomEventSchema | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v))
    throw invalidField(
      'schema',
      'must be an object mapping field names to "string", "number", "boolean" or "date", or null.',
    );
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length > MAX_SCHEMA_FIELDS)
    throw invalidField('schema', `must have at most ${MAX_SCHEMA_FIELDS} fields.`);
  const out: CustomEventSchema = {};
  for (const [k, t] of entries) {
    if (!k.trim() || k.length > MAX_FIELD_NAME)
      throw invalidField('schema', `field names must have 1 to ${MAX_FIELD_NAME} characters.`);
    if (!FIELD_TYPES.includes(t as CustomEventFieldType))
      throw invalidField(`schema.${k}`, 'must be "string", "number", "boolean" or "date".');
    out[k] = t as CustomEventFieldType;
  }
  return out;
}

/** The payload object of a send (absent or null = empty), at most 32 levels deep and 64 KB (JSON_FIELD_BOUNDS). */
export function customEventPayloadOf(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidField('payload', 'must be an object.');
  const excess = jsonBoundsExceeded(v, JSON_FIELD_BOUNDS);
  if (excess) throw invalidField('payload', excess);
  return v as Record<string, unknown>;
}

/** `2026-02-30` is not a day (Date would roll it over to March 2). */
function realDay(s: string): boolean {
  const [y, m, d] = s.slice(0, 10).split('-').map(Number);
  return m >= 1 && m <= 12 && d >= 1 && d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

function coerce(type: CustomEventFieldType, v: unknown): unknown {
  switch (type) {
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'number' && Number.isFinite(v)) return String(v);
      if (typeof v === 'boolean') return String(v);
      return undefined;
    case 'number':
      if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
      if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
      return undefined;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      if (v === 'true' || v === 'false') return v === 'true';
      if (v === 1 || v === 0 || v === '1' || v === '0') return v === 1 || v === '1';
      return undefined;
    case 'date': {
      // ISO 8601 text (a date, or a date and time) or epoch milliseconds; stored as ISO 8601 UTC.
      const ok =
        (typeof v === 'string' &&
          /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v.trim()) &&
          realDay(v.trim())) ||
        (typeof v === 'number' && Number.isFinite(v));
      const d = ok ? new Date(typeof v === 'string' ? v.trim() : (v as number)) : undefined;
      return d && !Number.isNaN(d.getTime()) ? d.toISOString() : undefined;
    }
  }
}

const EXPECTED: Record<CustomEventFieldType, string> = {
  string: 'must be a string',
  number: 'must be a number',
  boolean: 'must be a boolean',
  date: 'must be a date (ISO 8601, e.g. 2026-01-31 or 2026-01-31T09:00:00Z)',
};

/**
 * The payload checked and coerced against the schema: declared fields may be absent or null;
 * present ones must be (or convert to) their type; undeclared fields pass as they are.
 */
export function customEventPayloadCoerce(
  schema: CustomEventSchema | null,
  payload: Record<string, unknown>,
): Record<string, unknown> {
  if (!schema) return payload;
  const out = { ...payload };
  for (const [field, type] of Object.entries(schema)) {
    const v = payload[field];
    if (v === undefined || v === null) continue;
    const c = coerce(type, v);
    if (c === undefined) throw invalidField(`payload.${field}`, `${EXPECTED[type]}.`);
    out[field] = c;
  }
  return out;
}

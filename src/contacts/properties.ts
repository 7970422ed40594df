// Contact properties (resend-compat 7.4): the team's custom keys with a type and an optional
// fallback value, and the checks of a contact's values against them. Returns Resend's wire shapes.
import { invalidField, missingField, notFound } from '../errors.js';
import { shown } from '../mime/addresses.js';
import { isUuid } from '../lib/ids.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import type { PropertyValue } from '../store/contacts.js';
import {
  contactPropertiesFind,
  contactPropertyDelete,
  contactPropertyFindById,
  contactPropertyInsert,
  contactPropertyList,
  contactPropertyUpdateFallback,
  type ContactPropertyRow,
} from '../store/contact-properties.js';
import { propertyValue, type PropertyInput } from './input.js';

const KEY = /^[A-Za-z0-9_]{1,50}$/;
// Resend's built-in contact fields (a custom property would shadow them), and `__proto__`, which
// no JSON body can carry (the parser refuses it).
const RESERVED = new Set(['email', 'first_name', 'last_name', 'unsubscribed', '__proto__']);
const TYPES = ['string', 'number'] as const;

const view = (p: ContactPropertyRow) => ({ object: 'contact_property' as const, ...p });

function fallback(type: ContactPropertyRow['type'], v: unknown): PropertyValue | null {
  const value = propertyValue('fallback_value', v ?? null);
  if (value !== null && typeof value !== type)
    throw invalidField('fallback_value', `must be a ${type}, as the property's type.`);
  return value;
}

async function find(db: Queryable, teamId: string, id: string): Promise<ContactPropertyRow> {
  const p = isUuid(id) ? await contactPropertyFindById(db, teamId, id) : undefined;
  if (!p) throw notFound('Contact property');
  return p;
}

export async function propertyCreate(pool: Pool, teamId: string, body: Record<string, unknown>) {
  if (body.key === undefined || body.key === null || body.key === '') throw missingField('key');
  if (body.type === undefined || body.type === null) throw missingField('type');
  const { key, type } = body;
  if (typeof key !== 'string' || !KEY.test(key))
    throw invalidField('key', 'must be 1-50 letters, digits or underscores.');
  if (RESERVED.has(key.toLowerCase())) throw invalidField('key', `${shown(key)} is reserved.`);
  if (!TYPES.includes(type as never)) throw invalidField('type', 'must be "string" or "number".');
  const t = type as ContactPropertyRow['type'];
  const row = await contactPropertyInsert(pool, teamId, {
    key,
    type: t,
    fallback_value: fallback(t, body.fallback_value),
  });
  if (!row) throw invalidField('key', `a contact property with the key ${shown(key)} already exists.`);
  return { object: 'contact_property' as const, id: row.id };
}

export async function propertyGet(pool: Pool, teamId: string, id: string) {
  return view(await find(pool, teamId, id));
}

export async function propertyList(pool: Pool, teamId: string, page: PageQuery) {
  const p = await contactPropertyList(pool, teamId, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data };
}

/** Only the fallback value changes; the key and type are fixed once created (a different one is refused). */
export async function propertyUpdate(pool: Pool, teamId: string, id: string, body: Record<string, unknown>) {
  const p = await find(pool, teamId, id);
  for (const f of ['key', 'type'] as const)
    if (body[f] !== undefined && body[f] !== p[f])
      throw invalidField(f, 'cannot be changed; create a new property instead.');
  if (
    body.fallback_value !== undefined &&
    !(await contactPropertyUpdateFallback(pool, teamId, p.id, fallback(p.type, body.fallback_value)))
  )
    throw notFound('Contact property');
  return { object: 'contact_property' as const, id: p.id };
}

/** Deletes the property and its values on every contact of the team. */
export async function propertyRemove(pool: Pool, teamId: string, id: string) {
  if (!isUuid(id) || !(await withTx(pool, (tx) => contactPropertyDelete(tx, teamId, id))))
    throw notFound('Contact property');
  return { object: 'contact_property' as const, deleted: true, id };
}

/**
 * Checks a contact's new values against the team's properties: each key must exist and each
 * value match its type (null clears a value). Locks those properties until the caller's
 * transaction ends, so that none is deleted before the values are written.
 */
export async function propertiesCheck(tx: Queryable, teamId: string, values: PropertyInput): Promise<void> {
  const keys = Object.keys(values);
  if (!keys.length) return;
  const defs = new Map((await contactPropertiesFind(tx, teamId, keys, true)).map((d) => [d.key, d]));
  for (const k of keys) {
    const d = defs.get(k);
    if (!d)
      throw invalidField(
        'properties',
        `the property ${shown(k)} does not exist; create it first with POST /contact-properties.`,
      );
    const v = values[k];
    if (v !== null && typeof v !== d.type)
      throw invalidField('properties', `the property ${shown(k)} is a ${d.type}; got a ${typeof v}.`);
  }
}

/** What GET /contacts/:id shows: each property's own value, else its fallback; none when neither. */
/** A contact's properties as GET /contacts/:id shows them: `{key: {type, value}}`, the Node SDK's shape. */
export async function propertiesEffective(
  db: Queryable,
  teamId: string,
  stored: Record<string, PropertyValue>,
): Promise<Record<string, { type: string; value: PropertyValue }>> {
  const out: Record<string, { type: string; value: PropertyValue }> = {};
  for (const d of await contactPropertiesFind(db, teamId)) {
    const v = Object.hasOwn(stored, d.key) ? stored[d.key] : d.fallback_value; // not `constructor` of Object.prototype
    if (v !== null && v !== undefined) out[d.key] = { type: d.type, value: v };
  }
  return out;
}

// Reads contact request bodies into checked values: the address, the names, the opt-out flag and
// the shape of the property map. Whether property keys exist and their types match is
// properties.ts's job; segment/topic/audience references are refs.ts's.
import { invalidField, missingField } from '../errors.js';
import { parseAddress, shown, UNSAFE_HEADER_CHARS } from '../mime/addresses.js';

export const MAX_NAME = 256;
export const MAX_PROPERTY_STRING = 2_000;

export type PropertyInput = Record<string, string | number | null>;

export interface ContactInput {
  email?: string;
  first_name?: string | null;
  last_name?: string | null;
  unsubscribed?: boolean;
  properties?: PropertyInput;
}

/** A bare address (no display name), lowercased: contacts are one per address, in any case. */
export function contactEmail(v: unknown): string {
  if (v === undefined || v === null || v === '') throw missingField('email');
  if (typeof v !== 'string') throw invalidField('email', 'must be a string.');
  if (/[<>]/.test(v)) throw invalidField('email', 'must be a bare address like `email@example.com`, without a name.');
  return parseAddress(v, 'email').address.toLowerCase();
}

function name(field: string, v: unknown): string | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') throw invalidField(field, 'must be a string or null.');
  if (UNSAFE_HEADER_CHARS.test(v)) throw invalidField(field, 'line breaks and control characters are not allowed.');
  if (v.length > MAX_NAME) throw invalidField(field, `must be at most ${MAX_NAME} characters.`);
  return v;
}

/** A single property value's own shape; its type against the property is checked later. */
export function propertyValue(field: string, v: unknown): string | number | null {
  if (v === null) return null;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw invalidField(field, 'numbers must be finite.');
    return v;
  }
  if (typeof v !== 'string') throw invalidField(field, 'must be a string, a number or null.');
  if (v.length > MAX_PROPERTY_STRING)
    throw invalidField(field, `strings must be at most ${MAX_PROPERTY_STRING} characters.`);
  return v;
}

function properties(v: unknown): PropertyInput | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw invalidField('properties', 'must be an object of property keys and values.');
  const out: PropertyInput = Object.create(null); // keys are the client's: none may reach a prototype
  for (const [k, x] of Object.entries(v)) out[k] = propertyValue(`properties.${shown(k)}`, x);
  return out;
}

/** The fields of a create (`email` required) or update (all optional) body. */
export function contactInput(body: Record<string, unknown>, create: boolean): ContactInput {
  const out: ContactInput = {
    first_name: name('first_name', body.first_name),
    last_name: name('last_name', body.last_name),
    properties: properties(body.properties),
  };
  if (create || body.email !== undefined) out.email = contactEmail(body.email);
  if (body.unsubscribed !== undefined) {
    if (typeof body.unsubscribed !== 'boolean') throw invalidField('unsubscribed', 'must be true or false.');
    out.unsubscribed = body.unsubscribed;
  }
  return out;
}

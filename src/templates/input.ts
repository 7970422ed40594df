// Checks of a template's fields on create and update (resend-compat 7.6) and of the variables a
// send gives it (1.1). Each failure is a 422 naming the field; nothing here touches the database.
import { invalidField, missingField } from '../errors.js';
import { formatAddress, parseAddress, parseAddressList, shown, UNSAFE_HEADER_CHARS } from '../mime/addresses.js';
import { VARIABLE_KEY } from '../render/personalize.js';
import { isUuid, uuid } from '../lib/ids.js';
import type { TemplateVariableRow } from '../store/templates.js';

export const MAX_VARIABLES = 50;
export const MAX_STRING_VALUE = 2000;
const MAX_NAME = 256;
const MAX_SUBJECT = 988; // as for emails: "Subject: " and 988 characters fit one 998-octet line
// Resend's reserved names (docs "Working with variables"), and the unsubscribe link the renderer fills.
export const RESERVED_VARIABLES = [
  'FIRST_NAME',
  'LAST_NAME',
  'EMAIL',
  'UNSUBSCRIBE_URL',
  'RESEND_UNSUBSCRIBE_URL',
  'contact',
  'this',
];
const ALIAS = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const absent = (v: unknown) => v === undefined || v === null;

export function nameOf(v: unknown, required: boolean): string | undefined {
  if (absent(v)) {
    if (required) throw missingField('name');
    return undefined;
  }
  if (typeof v !== 'string' || !v.trim()) throw invalidField('name', 'must be a non-empty string.');
  if (v.length > MAX_NAME) throw invalidField('name', `must be at most ${MAX_NAME} characters.`);
  if (/[\u0000-\u001f\u007f]/.test(v))
    throw invalidField('name', 'must not contain line breaks or control characters.');
  return v.trim();
}

/** undefined: not given; null: cleared (update only). */
export function aliasOf(v: unknown): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  if (typeof v !== 'string' || !ALIAS.test(v))
    throw invalidField('alias', 'must be 1-100 letters, digits, ".", "_" or "-", starting with a letter or digit.');
  if (isUuid(v)) throw invalidField('alias', 'must not look like a template id (a UUID).');
  return v;
}

export function fromOf(v: unknown): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  if (typeof v !== 'string' || UNSAFE_HEADER_CHARS.test(v))
    throw invalidField('from', 'must be "you@example.com" or "Your Name <you@example.com>".');
  try {
    parseAddress(v, 'from');
    return v.trim();
  } catch {
    throw invalidField('from', 'must be "you@example.com" or "Your Name <you@example.com>".');
  }
}

export function subjectOf(v: unknown): string | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  if (typeof v !== 'string') throw invalidField('subject', 'must be a string.');
  if (UNSAFE_HEADER_CHARS.test(v)) throw invalidField('subject', 'line breaks and control characters are not allowed.');
  if (v.length > MAX_SUBJECT) throw invalidField('subject', `must be at most ${MAX_SUBJECT} characters.`);
  return v;
}

/** A string or an array of addresses (the SDK sends `replyTo` as given). */
export function replyToOf(v: unknown): string[] | null | undefined {
  if (v === undefined) return undefined;
  if (v === null || (Array.isArray(v) && v.length === 0) || v === '') return null;
  return parseAddressList(v, 'reply_to').map(formatAddress);
}

export function bodyOf(field: 'html' | 'text', v: unknown, required: boolean): string | null | undefined {
  if (absent(v)) {
    if (required) throw missingField(field);
    return v === null ? null : undefined;
  }
  if (typeof v !== 'string') throw invalidField(field, 'must be a string.');
  if (required && !v.trim()) throw invalidField(field, 'must not be empty.');
  return v;
}

/**
 * `[{key, type: "string"|"number", fallback_value?}]`, at most 50, keys unique and not reserved.
 * Variables already defined keep their id and created_at (`previous`).
 */
export function variablesOf(
  v: unknown,
  previous: TemplateVariableRow[],
  now: string,
): TemplateVariableRow[] | undefined {
  if (v === undefined) return undefined;
  if (v === null) return [];
  if (!Array.isArray(v)) throw invalidField('variables', 'must be an array of {key, type, fallback_value}.');
  if (v.length > MAX_VARIABLES)
    throw invalidField('variables', `a template may have at most ${MAX_VARIABLES} variables (got ${v.length}).`);
  const seen = new Set<string>();
  const before = new Map(previous.map((p) => [p.key, p]));
  return v.map((x, i) => {
    const at = `variables[${i}]`;
    if (typeof x !== 'object' || x === null || Array.isArray(x))
      throw invalidField(at, 'must be an object {key, type, fallback_value}.');
    const { key, type } = x as Record<string, unknown>;
    const fb = (x as Record<string, unknown>).fallback_value ?? (x as Record<string, unknown>).fallbackValue ?? null;
    if (typeof key !== 'string' || !VARIABLE_KEY.test(key))
      throw invalidField(`${at}.key`, 'must be 1-50 ASCII letters, digits or underscores.');
    if (RESERVED_VARIABLES.includes(key)) {
      throw invalidField(
        `${at}.key`,
        `${shown(key)} is a reserved variable name (reserved: ${RESERVED_VARIABLES.join(', ')}); contact fields are written {{{contact.first_name}}} and need no variable.`,
      );
    }
    if (seen.has(key)) throw invalidField(`${at}.key`, `${shown(key)} is defined twice.`);
    seen.add(key);
    if (type !== 'string' && type !== 'number') throw invalidField(`${at}.type`, 'must be "string" or "number".');
    if (fb !== null) {
      if (typeof fb !== type) throw invalidField(`${at}.fallback_value`, `must be a ${type}, as the variable's type.`);
      if (typeof fb === 'string' && fb.length > MAX_STRING_VALUE)
        throw invalidField(`${at}.fallback_value`, `must be at most ${MAX_STRING_VALUE} characters.`);
      if (typeof fb === 'number' && !Number.isFinite(fb))
        throw invalidField(`${at}.fallback_value`, 'must be a finite number.');
    }
    const old = before.get(key);
    const fallback_value = fb as string | number | null;
    if (old && old.type === type && old.fallback_value === fallback_value) return old;
    return { id: old?.id ?? uuid(), key, type, fallback_value, created_at: old?.created_at ?? now, updated_at: now };
  });
}

/** The `variables` of a send: an object of strings (at most 2000 characters) and numbers. */
export function sendVariablesOf(v: unknown): Record<string, string | number> {
  if (absent(v)) return {};
  if (typeof v !== 'object' || Array.isArray(v))
    throw invalidField('template.variables', 'must be an object of string or number values.');
  const out: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(v as object)) {
    const at = `template.variables.${key}`;
    if (!VARIABLE_KEY.test(key))
      throw invalidField(
        'template.variables',
        `${shown(key)} is not a valid variable key (1-50 ASCII letters, digits or underscores).`,
      );
    if (typeof value === 'string') {
      if (value.length > MAX_STRING_VALUE) throw invalidField(at, `must be at most ${MAX_STRING_VALUE} characters.`);
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value) || Math.abs(value) > Number.MAX_SAFE_INTEGER)
        throw invalidField(at, 'must be a finite number no larger than 2^53-1.');
    } else if (value !== null) {
      throw invalidField(at, 'must be a string or a number.');
    }
    if (value !== null) out[key] = value;
  }
  return out;
}

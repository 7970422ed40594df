// Strings a client sends must be text we can store and send: no NUL, no lone UTF-16 surrogate
// (PostgreSQL refuses both, and they used to surface as 500s from deep inside a module). Checked
// once at the edge for bodies, path parameters and query strings; the answer names the field.
import { AppError } from '../errors.js';

const BAD = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** NUL or any surrogate: only such a string can be BAD (whose lookarounds cost on every string). */
const MAYBE_BAD = /[\u0000\uD800-\uDFFF]/;
const bad = (s: string) => MAYBE_BAD.test(s) && BAD.test(s);

/**
 * The path of the first string (or key) that is not storable text, or undefined. The path of a
 * member is built only for a member that is bad or holds others: every request body passes here.
 */
export function unstorableField(v: unknown, path = '', depth = 0): string | undefined {
  if (typeof v === 'string') return bad(v) ? path || 'body' : undefined;
  if (depth > 64 || !v || typeof v !== 'object') return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string' ? !bad(x) : !x || typeof x !== 'object') continue;
      const f = unstorableField(x, `${path}[${i}]`, depth + 1);
      if (f) return f;
    }
    return undefined;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (bad(k)) return path ? `${path}.${k}` : k;
    const x = o[k];
    if (typeof x === 'string' ? !bad(x) : !x || typeof x !== 'object') continue;
    const f = unstorableField(x, path ? `${path}.${k}` : k, depth + 1);
    if (f) return f;
  }
  return undefined;
}

export function assertStorableText(v: unknown, part: 'body' | 'parameter' | 'query parameter'): void {
  const field = unstorableField(v);
  if (field)
    throw new AppError(
      'validation_error',
      `Invalid \`${field.replace(/[^\x20-\x7e]/g, '?')}\` ${part === 'body' ? 'field' : part}: it contains a NUL character or invalid UTF-16 (a lone surrogate).`,
    );
}

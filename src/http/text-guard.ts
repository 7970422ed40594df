// Strings a client sends must be text we can store and send: no NUL, no lone UTF-16 surrogate
// (PostgreSQL refuses both, and they used to surface as 500s from deep inside a module). Checked
// once at the edge for bodies, path parameters and query strings; the answer names the field.
import { AppError } from '../errors.js';

const BAD = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** The path of the first string (or key) that is not storable text, or undefined. */
export function unstorableField(v: unknown, path = '', depth = 0): string | undefined {
  if (typeof v === 'string') return BAD.test(v) ? path || 'body' : undefined;
  if (depth > 64 || !v || typeof v !== 'object') return undefined;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const f = unstorableField(v[i], `${path}[${i}]`, depth + 1);
      if (f) return f;
    }
    return undefined;
  }
  for (const [k, x] of Object.entries(v)) {
    const here = path ? `${path}.${k}` : k;
    if (BAD.test(k)) return here;
    const f = unstorableField(x, here, depth + 1);
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

// How deep and how large a client's JSON value may be before we store it (a custom event's payload,
// an automation's steps): stored JSON is read back by recursive code (ours, the pg driver,
// PostgreSQL's jsonb parser), and one tenant's 6,000-deep payload once failed a shared batch insert.
// Pure: says what is wrong; the caller names the field in its 422.

export interface JsonBounds {
  /** levels of objects and arrays: `{}` is 1, `{"a": []}` is 2; scalars add none */
  depth: number;
  /** UTF-8 bytes of the value serialized (JSON.stringify) */
  bytes: number;
}

/** Custom event payloads and other free-form JSON fields: ample for real data (a few levels, a few KB). */
export const JSON_FIELD_BOUNDS: JsonBounds = { depth: 32, bytes: 64 * 1024 };

/**
 * Why `v` is outside `bounds` ("nests more than 32 levels deep"), or undefined. The depth is
 * measured without recursion and before serializing, so a value nested 100,000 deep costs a walk
 * that stops at the limit, never a stack overflow.
 */
export function jsonBoundsExceeded(v: unknown, bounds: JsonBounds): string | undefined {
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length) {
    const [x, depth] = stack.pop()!;
    if (!x || typeof x !== 'object') continue;
    if (depth > bounds.depth) return `nests more than ${bounds.depth} levels deep.`;
    for (const child of Array.isArray(x) ? x : Object.values(x))
      if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  const text = JSON.stringify(v) ?? '';
  if (Buffer.byteLength(text) > bounds.bytes)
    return `is larger than ${Math.round(bounds.bytes / 1024)} KB serialized as JSON.`;
  return undefined;
}

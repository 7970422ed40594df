// Records every API request without slowing it: entries are buffered in memory and written in
// one statement per batch (every FLUSH_MS or BATCH entries), and flushed on shutdown. Bodies are
// cleaned first: attachment contents elided, secrets masked, very long strings cut, and what
// PostgreSQL cannot store (NUL, lone UTF-16 surrogates) replaced by U+FFFD in values and keys.
import { BufferedWriter } from '../lib/buffered-writer.js';
import type { Logger } from '../lib/log.js';
import type { Queryable } from '../store/db.js';
import { requestLogInsertMany, type RequestLogRow } from '../store/request-logs.js';

const FLUSH_MS = 250;
const BATCH = 500;
const MAX_BUFFER = 50_000; // beyond this, entries are dropped (and counted) rather than exhaust memory
const SECRET_KEYS = new Set([
  'token',
  'signing_secret',
  'password',
  'secret',
  'api_key',
  'private_key',
  'authorization',
]);
const MAX_STRING = 10_000;

function elideContent(x: unknown): string {
  if (typeof x === 'string') return `[elided: ${x.length} base64 characters]`;
  if (Array.isArray(x)) return `[elided: ${x.length} bytes]`;
  const data = (x as { data?: unknown } | null)?.data;
  return Array.isArray(data) ? `[elided: ${data.length} bytes]` : '[elided]';
}

const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** NUL or any surrogate: only such a string can need the replace (the lookarounds cost on every string). */
const MAYBE_UNSTORABLE = /[\u0000\uD800-\uDFFF]/;

/** A string PostgreSQL's text and jsonb accept: no NUL, no lone surrogate. */
export const storableText = (s: string): string => (MAYBE_UNSTORABLE.test(s) ? s.replace(UNSTORABLE, '\uFFFD') : s);

export function sanitizeBody(v: unknown, key = '', depth = 0): unknown {
  if (depth > 20) return '[elided: too deep]';
  if (typeof v === 'string') {
    v = storableText(v as string);
    if (typeof v !== 'string') return v;
    if (SECRET_KEYS.has(key)) return v.length > 6 ? `${v.slice(0, 6)}********` : '********';
    return v.length > MAX_STRING ? `${v.slice(0, MAX_STRING)}… [${v.length - MAX_STRING} more characters elided]` : v;
  }
  if (Array.isArray(v)) {
    if (key === 'attachments') {
      return v.map((a) => {
        if (!a || typeof a !== 'object' || !('content' in a)) return sanitizeBody(a, '', depth + 1);
        const { content, ...rest } = a as Record<string, unknown>;
        return { ...(sanitizeBody(rest, '', depth + 1) as object), content: elideContent(content) };
      });
    }
    return v.slice(0, 1000).map((x) => sanitizeBody(x, '', depth + 1));
  }
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[storableText(k)] = sanitizeBody(x, k, depth + 1);
    return out;
  }
  return v;
}

export class RequestLogRecorder {
  private readonly writer: BufferedWriter<RequestLogRow>;

  constructor(db: Queryable, log: Logger) {
    this.writer = new BufferedWriter((rows) => requestLogInsertMany(db, rows), {
      name: 'request log',
      flushMs: FLUSH_MS,
      batch: BATCH,
      maxBuffer: MAX_BUFFER,
      log,
    });
  }

  get dropped(): number {
    return this.writer.dropped;
  }

  /** Entries that could not be written even on their own (logged). */
  get failed(): number {
    return this.writer.failed;
  }

  record(row: RequestLogRow): void {
    const clean: Record<string, unknown> = {};
    for (const k in row) {
      const x = row[k as keyof RequestLogRow];
      clean[k] = typeof x === 'string' ? storableText(x) : x;
    }
    clean.request_body = sanitizeBody(row.request_body);
    clean.response_body = sanitizeBody(row.response_body);
    this.writer.push(clean as unknown as RequestLogRow);
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }
}

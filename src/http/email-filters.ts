// Parses the email list's optional filters from the query string (status, start_date, end_date,
// domain_id, api_key_id, broadcast_id, tag=name[:value], q=recipient address or subject words).
import { AppError, invalidField } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { timestampMs, timestampProblem } from '../lib/timestamp-text.js';
import type { EmailFilters } from '../store/email-filters.js';

export const EMAIL_STATUSES = [
  'queued',
  'scheduled',
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'complained',
  'opened',
  'clicked',
  'failed',
  'canceled',
  'suppressed',
];

/** Only dates PostgreSQL stores (lib/timestamp-text.ts): `new Date()` alone took year -271821 and 2026-02-31. */
function date(v: string, field: string): Date {
  const why = timestampProblem(v);
  if (why) throw invalidField(field, `must be an ISO 8601 date or date-time: ${why}`);
  return new Date(timestampMs(v));
}

export function parseEmailFilters(q: Record<string, unknown>): EmailFilters {
  const f: EmailFilters = {};
  const s = (k: string) =>
    typeof q[k] === 'string' && (q[k] as string).trim() !== '' ? (q[k] as string).trim() : undefined;
  const status = s('status');
  if (status) {
    if (!EMAIL_STATUSES.includes(status)) throw invalidField('status', `must be one of ${EMAIL_STATUSES.join(', ')}.`);
    f.status = status;
  }
  if (s('start_date')) f.startDate = date(s('start_date')!, 'start_date');
  if (s('end_date')) f.endDate = date(s('end_date')!, 'end_date');
  for (const [k, prop] of [
    ['domain_id', 'domainId'],
    ['api_key_id', 'apiKeyId'],
    ['broadcast_id', 'broadcastId'],
  ] as const) {
    const v = s(k);
    if (v === undefined) continue;
    if (!isUuid(v)) throw new AppError('invalid_parameter', `The \`${k}\` parameter must be a valid UUID.`);
    f[prop] = v;
  }
  const tag = s('tag');
  if (tag) {
    const i = tag.search(/[:=]/);
    f.tag = i < 0 ? { name: tag } : { name: tag.slice(0, i), value: tag.slice(i + 1) };
  }
  const search = s('q');
  if (search) {
    const q = search.trim().slice(0, 320);
    if (/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(q))
      f.recipient = q; // a whole address: the indexed exact match
    else {
      // Part of an address ("noah", "@gmail.com") or subject words: either may match.
      if (!/\s/.test(q)) f.recipientPart = q;
      const words = q.includes('@')
        ? []
        : q
            .split(/[^\p{L}\p{N}_]+/u)
            .filter(Boolean)
            .slice(0, 8)
            .map((w) => w.toLowerCase());
      if (words.length) f.subjectWords = words;
    }
  }
  return f;
}

// Validation of a POST /emails (or one /emails/batch item) body into a normalized SendRequest.
// Owns every field rule and its error message (resend-compat.md 1.1); ignores unknown fields.
// Nothing here touches the database: domain ownership, quotas and templates are checked by the caller
// (a `template` is rendered into from/subject/reply_to/html/text first: templateRefOf, send.ts).
import { AppError, invalidField, missingField } from '../errors.js';
import { parseAddress, parseAddressList, UNSAFE_HEADER_CHARS, type Address } from '../mime/addresses.js';
import { base64Size, normalizeAttachments, type Attachment } from './attachments.js';
import { parseScheduledAt } from './schedule.js';

export interface Tag {
  name: string;
  value: string;
}

export interface SendRequest {
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address[];
  subject: string;
  html?: string;
  /** undefined: generate from html when composing; '': no text part. */
  text?: string;
  headers: Record<string, string>;
  attachments: Attachment[];
  tags: Tag[];
  scheduledAt?: Date;
  /** A topic id as given (looked up against the team's topics by the send path). */
  topicId?: string;
}

export const MAX_TO = 50;
export const MAX_TAGS = 75;
export const MAX_EMAIL_BYTES = 40 * 1024 * 1024; // "total email ≤ 40 MB after base64"
export const MAX_SUBJECT = 988; // "Subject: " + 988 fits the 998-octet line even when nothing can be folded
const TAG_PART = /^[A-Za-z0-9_-]{1,256}$/;
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]{1,128}$/; // RFC 5322 ftext: printable ASCII but ':'
/** Headers Mailroom writes itself; letting a caller set them would forge or break the message. */
export const OWNED_HEADERS = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'message-id',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  'dkim-signature',
  'return-path',
]);
/** Fields a message may carry at most once (RFC 5322 3.6): a second From or To could forge the sender or hide recipients. */
export const SINGLE_HEADERS = new Set([
  'from',
  'sender',
  'reply-to',
  'to',
  'cc',
  'bcc',
  'subject',
  'date',
  'message-id',
  'in-reply-to',
  'references',
]);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const absent = (v: unknown) => v === undefined || v === null;

function optionalList(body: Record<string, unknown>, field: string): Address[] {
  const v = body[field];
  return absent(v) ? [] : parseAddressList(v, field);
}

function parseFrom(v: unknown): Address {
  if (absent(v) || v === '') throw missingField('from');
  if (typeof v !== 'string') throw new AppError('invalid_from_address');
  if (UNSAFE_HEADER_CHARS.test(v)) throw invalidField('from', 'line breaks and control characters are not allowed.');
  try {
    return parseAddress(v, 'from');
  } catch {
    throw new AppError('invalid_from_address');
  }
}

function parseSubject(v: unknown): string {
  if (absent(v) || v === '') throw missingField('subject');
  if (typeof v !== 'string') throw invalidField('subject', 'must be a string.');
  if (UNSAFE_HEADER_CHARS.test(v)) throw invalidField('subject', 'line breaks and control characters are not allowed.');
  if (v.length > MAX_SUBJECT) throw invalidField('subject', `must be at most ${MAX_SUBJECT} characters.`);
  return v;
}

function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const v = body[field];
  if (absent(v)) return undefined;
  if (typeof v !== 'string') throw invalidField(field, 'must be a string.');
  return v;
}

/** Custom headers: string values, RFC 5322 names, nothing we own, nothing that could end a line. */
export function validateHeaders(v: unknown): Record<string, string> {
  if (absent(v)) return {};
  if (!isObject(v)) throw invalidField('headers', 'must be an object of string values.');
  const out: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(v)) {
    const lower = name.toLowerCase();
    if (SINGLE_HEADERS.has(lower) && seen.has(lower))
      throw invalidField('headers', `\`${name}\` appears more than once; a message may have only one.`);
    seen.add(lower);
    if (UNSAFE_HEADER_CHARS.test(name))
      throw invalidField('headers', 'header names must not contain line breaks or control characters.');
    if (!FIELD_NAME.test(name))
      throw invalidField(
        'headers',
        `${JSON.stringify(name.slice(0, 100))} is not a valid header name (printable ASCII without spaces or colons, at most 128 characters).`,
      );
    if (OWNED_HEADERS.has(name.toLowerCase()))
      throw invalidField('headers', `the \`${name}\` header is set by Mailroom and cannot be overridden.`);
    if (typeof value !== 'string') throw invalidField('headers', `the value of \`${name}\` must be a string.`);
    if (UNSAFE_HEADER_CHARS.test(value))
      throw invalidField('headers', `the value of \`${name}\` must not contain line breaks or control characters.`);
    if (name.length + 2 + value.length > 998)
      throw invalidField('headers', `\`${name}\` is too long (a header line is at most 998 characters).`);
    out[name] = value;
  }
  return out;
}

export function validateTags(v: unknown): Tag[] {
  if (absent(v)) return [];
  if (!Array.isArray(v)) throw invalidField('tags', 'must be an array of {name, value} objects.');
  if (v.length > MAX_TAGS) throw invalidField('tags', `at most ${MAX_TAGS} tags are allowed (got ${v.length}).`);
  return v.map((t, i) => {
    if (!isObject(t)) throw invalidField('tags', `tags[${i}] must be an object with \`name\` and \`value\`.`);
    for (const key of ['name', 'value'] as const) {
      if (typeof t[key] !== 'string' || !TAG_PART.test(t[key] as string)) {
        throw invalidField(
          'tags',
          `tags[${i}].${key} must be 1-256 ASCII letters (a–z, A–Z), numbers (0–9), underscores (_), or dashes (-).`,
        );
      }
    }
    return { name: t.name as string, value: t.value as string };
  });
}

/** Size of the email as the 40 MB rule counts it: bodies plus attachments after base64. */
export function encodedSize(req: Pick<SendRequest, 'html' | 'text' | 'attachments'>): number {
  const bodies = Buffer.byteLength(req.html ?? '') + Buffer.byteLength(req.text ?? '');
  return req.attachments.reduce((n, a) => n + (a.content ? base64Size(a.content.length) : 0), bodies);
}

/** Raw bytes left for `path` attachments once content attachments and bodies are counted. */
export const pathAttachmentBudget = (req: SendRequest): number =>
  Math.max(0, Math.floor((MAX_EMAIL_BYTES - encodedSize(req)) / 4) * 3);

/** The `template` of a send, checked for shape and for html/text beside it; undefined without one. */
export function templateRefOf(body: unknown): { ref: string; variables: unknown } | undefined {
  if (!isObject(body) || absent(body.template)) return undefined;
  const t = body.template;
  if (!isObject(t)) throw invalidField('template', 'must be an object {id, variables}.');
  if (absent(t.id) || t.id === '') throw missingField('template.id');
  if (typeof t.id !== 'string' || t.id.length > 256)
    throw invalidField('template.id', 'must be a template id or alias.');
  for (const field of ['html', 'text', 'react'] as const) {
    if (!absent(body[field]))
      throw invalidField('template', `\`${field}\` cannot be sent with a template: the template provides the body.`);
  }
  return { ref: t.id, variables: t.variables };
}

export function validateSendRequest(body: unknown, opts: { allowAttachments: boolean; now: Date }): SendRequest {
  if (!isObject(body)) throw new AppError('validation_error', 'The request body must be a JSON object.');
  // The send path replaces `template` by the rendered template before validating (send.ts).
  if (!absent(body.template))
    throw invalidField('template', 'templates are accepted on POST /emails and /emails/batch only.');
  if (!absent(body.topic_id) && typeof body.topic_id !== 'string')
    throw invalidField('topic_id', 'must be a string (a topic id).');
  const from = parseFrom(body.from);
  if (absent(body.to) || body.to === '' || (Array.isArray(body.to) && body.to.length === 0)) throw missingField('to');
  const to = parseAddressList(body.to, 'to');
  if (to.length > MAX_TO) throw invalidField('to', `at most ${MAX_TO} recipients are allowed (got ${to.length}).`);
  const subject = parseSubject(body.subject);
  const html = optionalString(body, 'html');
  const text = optionalString(body, 'text');
  if (!html && !text) throw missingField('html` or `text');
  const cc = optionalList(body, 'cc');
  const bcc = optionalList(body, 'bcc');
  const recipients = to.length + cc.length + bcc.length;
  if (recipients > MAX_TO)
    throw new AppError(
      'validation_error',
      `Too many recipients: \`to\`, \`cc\` and \`bcc\` together may have at most ${MAX_TO} addresses (got ${recipients}).`,
    );
  const replyTo = optionalList(body, 'reply_to');
  const headers = validateHeaders(body.headers);
  if (replyTo.length && Object.keys(headers).some((h) => h.toLowerCase() === 'reply-to'))
    throw invalidField(
      'headers',
      'give `Reply-To` either in `reply_to` or in `headers`, not both (a message may have only one).',
    );
  const hasAttachments =
    !absent(body.attachments) && !(Array.isArray(body.attachments) && body.attachments.length === 0);
  if (hasAttachments && !opts.allowAttachments)
    throw new AppError('validation_error', 'Attachments are not supported in batch emails');
  const attachments = normalizeAttachments(body.attachments);
  const tags = validateTags(body.tags);
  const scheduled = body.scheduled_at;
  if (!absent(scheduled) && typeof scheduled !== 'string')
    throw invalidField('scheduled_at', 'must be a string (ISO 8601 or natural language).');
  const scheduledAt = typeof scheduled === 'string' ? parseScheduledAt(scheduled, opts.now) : undefined;

  // Built by adding properties in order rather than with `delete` for an absent html or text: a
  // deleted property turns the object into a slow dictionary for every later read and spread.
  const req = { from, to, cc, bcc, replyTo, subject } as SendRequest;
  if (html !== undefined) req.html = html;
  if (text !== undefined) req.text = text;
  req.headers = headers;
  req.attachments = attachments;
  req.tags = tags;
  if (scheduledAt) req.scheduledAt = scheduledAt;
  if (typeof body.topic_id === 'string') req.topicId = body.topic_id;
  const size = encodedSize(req);
  if (size > MAX_EMAIL_BYTES) {
    throw new AppError(
      'validation_error',
      `The email is too large: ${(size / 1048576).toFixed(1)} MB after base64 encoding; the limit is 40 MB (bodies and attachments together).`,
    );
  }
  return req;
}

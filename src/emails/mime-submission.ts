// A message the client composed itself (SMTP submission) turned into what the send path takes:
// the SendRequest for the email record (From/To/Cc/Subject/bodies from the parsed MIME, the
// recipients from the envelope) and the raw message as the client built it, minus Bcc and the
// headers Mailroom owns, plus Message-ID/Date when missing. Pure: no database, no sockets.
import { createHash, randomUUID } from 'node:crypto';
import { MailParser, type AddressObject, type AttachmentStream, type MessageText } from 'mailparser';
import addressparser from 'nodemailer/lib/addressparser';
import { AppError, invalidField } from '../errors.js';
import { parseAddress, type Address } from '../mime/addresses.js';
import { SINGLE_HEADERS, validateHeaders, validateTags, type SendRequest, type Tag } from './validate.js';

export interface Envelope {
  mailFrom: Address;
  rcptTo: Address[];
}

export interface SubmittedMessage {
  request: SendRequest;
  /** The client's message without Bcc and owned headers (Message-ID and Date not yet added). */
  stripped: Buffer;
  /** The client's Message-ID (with brackets), when it gave one. */
  messageId?: string;
  hasDate: boolean;
  idempotencyKey?: string;
  /** X-Mailer or User-Agent, for the request log. */
  userAgent?: string;
  /** What an idempotency key stands for: the content, not the bytes (clients regenerate MIME boundaries). */
  fingerprint: Record<string, unknown>;
}

/** Headers the service writes or consumes; a client's copy is dropped (Bcc: the envelope carries those). */
const DROPPED = new Set(['bcc', 'return-path', 'dkim-signature', 'x-mailroom-tags', 'resend-idempotency-key']);
/** Custom headers recorded with the email (and shown in events), as the API's `headers` field would be. */
const RECORDED = /^(x-|list-)/i;
const NOT_RECORDED = new Set(['x-mailer', 'x-mailroom-tags']);
const MAX_RECORDED = 50;
const MAX_HEADER_BLOCK = 1024 * 1024;

interface Field {
  name: string;
  lines: string[];
}

/** Splits the header block (latin1, so bytes survive) into fields, folded lines kept with their field. */
function headerFields(block: string): Field[] {
  const fields: Field[] = [];
  for (const line of block.split('\r\n')) {
    const last = fields[fields.length - 1];
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) last.lines.push(line);
    else {
      const colon = line.indexOf(':');
      fields.push({ name: colon > 0 ? line.slice(0, colon).trim().toLowerCase() : '', lines: [line] });
    }
  }
  return fields;
}

/** The unfolded value of a field, decoded as UTF-8 (8-bit headers are RFC 6532 UTF-8). */
const valueOf = (f: Field): string =>
  Buffer.from(f.lines.join('').slice(f.lines[0].indexOf(':') + 1), 'latin1')
    .toString('utf8')
    .trim();

/** Bare LF or bare CR line ends become CRLF, so the header split and DKIM see one form. */
function toCrlf(raw: Buffer): Buffer {
  let bare = false;
  for (let i = raw.indexOf(10); i !== -1; i = raw.indexOf(10, i + 1)) {
    if (i === 0 || raw[i - 1] !== 13) {
      bare = true;
      break;
    }
  }
  if (!bare && raw.indexOf(13) === -1) return raw;
  if (!bare) {
    for (let i = raw.indexOf(13); i !== -1; i = raw.indexOf(13, i + 1))
      if (raw[i + 1] !== 10) {
        bare = true;
        break;
      }
  }
  return bare ? Buffer.from(raw.toString('latin1').replace(/\r\n|\r|\n/g, '\r\n'), 'latin1') : raw;
}

/** `X-Mailroom-Tags: a=b, c=d` → tags, validated like the API's `tags`. */
export function parseTagsHeader(value: string): Tag[] {
  const tags = value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0)
        throw invalidField(
          'tags',
          `X-Mailroom-Tags entries must be name=value (got ${JSON.stringify(pair.slice(0, 80))}).`,
        );
      return { name: pair.slice(0, eq).trim(), value: pair.slice(eq + 1).trim() };
    });
  return validateTags(tags);
}

/** NUL cannot be stored in a PostgreSQL text column (an encoded-word can carry one): the record drops it. */
const noNul = (s: string) => s.replaceAll('\0', '');

function headerAddresses(v: unknown): Address[] {
  const objs = (Array.isArray(v) ? v : v ? [v] : []) as AddressObject[];
  const out: Address[] = [];
  const walk = (list: AddressObject['value']) => {
    for (const a of list) {
      if (a.group) walk(a.group);
      else if (a.address) {
        try {
          const parsedAddress = parseAddress(a.address, 'to');
          if (a.name) parsedAddress.name = noNul(a.name);
          out.push(parsedAddress);
        } catch {
          /* a malformed display address: the envelope decides who receives it */
        }
      }
    }
  };
  for (const o of objs) walk(o.value ?? []);
  return out;
}

interface Parsed {
  headers: Map<string, unknown>;
  text?: string;
  html?: string;
  attachments: { filename?: string; contentType: string; sha256: string }[];
}

/** Parses bodies and decoded headers; attachment contents are hashed and dropped, never held. */
function parseMime(raw: Buffer): Promise<Parsed> {
  return new Promise((resolve, reject) => {
    const parser = new MailParser({
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipImageLinks: true,
    });
    const out: Parsed = { headers: new Map(), attachments: [] };
    parser.on('headers', (h) => {
      out.headers = h as Map<string, unknown>;
    });
    parser.on('data', (data: AttachmentStream | MessageText) => {
      if (data.type === 'text') {
        // The line break that ends the part is transport, not content; '' is "no text part".
        if (typeof data.text === 'string' && data.text !== '') out.text = noNul(data.text.replace(/\n$/, ''));
        if (typeof data.html === 'string') out.html = noNul(data.html.replace(/\n$/, ''));
        return;
      }
      const hash = createHash('sha256');
      data.content.on('data', (chunk: Buffer) => hash.update(chunk));
      data.content.on('end', () => {
        out.attachments.push({ filename: data.filename, contentType: data.contentType, sha256: hash.digest('hex') });
        data.release();
      });
    });
    parser.on('error', (err: Error) =>
      reject(new AppError('validation_error', `The message could not be parsed as MIME: ${err.message}`)),
    );
    parser.on('end', () => resolve(out));
    parser.end(raw);
  });
}

const ADDRESS_FIELDS = ['from', 'to', 'cc', 'reply-to'];
const PLAIN_ADDRESS = /^(?:([A-Za-z0-9'_+-]+(?: [A-Za-z0-9'_+-]+)*) <|<)?([A-Za-z0-9._+-]+@[A-Za-z0-9.-]+)(>?)$/;

type AddressList = ReturnType<typeof addressparser>;

/**
 * addressparser's result for the common one-address field (`a@b.c`, `<a@b.c>`, `Name Words <a@b.c>`
 * in plain ASCII), without its tokenizer: it was the largest single item of parsing a submitted
 * message (issue 27). Anything else (quotes, comments, groups, lists, other characters) returns
 * undefined and takes addressparser; test/smtp/address-fast-path.test.ts checks the two agree.
 */
export function plainAddress(value: string): AddressList | undefined {
  const m = PLAIN_ADDRESS.exec(value);
  if (!m) return undefined;
  const bracketed = value.charCodeAt(0) === 60 /* < */ || m[1] !== undefined;
  if (bracketed !== (m[3] === '>')) return undefined; // an unbalanced bracket: addressparser decides
  return [{ address: m[2], name: m[1] ?? '' }];
}
const SIMPLE_TYPE = /^text\/(plain|html)$/;
const SIMPLE_CHARSET = /^charset\s*=\s*"?(utf-8|us-ascii|ascii)"?$/i;

/**
 * The same result as parseMime for the common simple message (one text/plain or text/html part,
 * UTF-8 or ASCII, 7bit/8bit, no encoded words in the fields we read), without MailParser's
 * stream machinery: ~15 µs instead of ~200 µs per message, a third of the SMTP path's CPU.
 * Anything else returns undefined and takes the full parser.
 */
function parseSimple(fields: Field[], body: Buffer): Parsed | undefined {
  const one = (name: string) => fields.filter((f) => f.name === name);
  const ct = one('content-type');
  const cte = one('content-transfer-encoding');
  if (ct.length > 1 || cte.length > 1) return undefined;
  let kind = 'text';
  if (ct.length) {
    const [type, ...params] = valueOf(ct[0])
      .split(';')
      .map((x) => x.trim())
      .filter(Boolean);
    const m = SIMPLE_TYPE.exec(type.toLowerCase());
    if (!m || params.some((p) => !SIMPLE_CHARSET.test(p))) return undefined;
    kind = m[1] === 'html' ? 'html' : 'text';
  }
  if (cte.length && !/^(7bit|8bit)$/i.test(valueOf(cte[0]))) return undefined;
  const headers = new Map<string, unknown>();
  for (const name of [...ADDRESS_FIELDS, 'subject']) {
    const list = one(name);
    if (!list.length) continue;
    const values = list.map(valueOf);
    if (values.some((v) => v.includes('=?'))) return undefined;
    headers.set(
      name,
      name === 'subject' ? values[0] : values.map((v) => ({ value: plainAddress(v) ?? addressparser(v) })),
    );
  }
  const content = body.toString('utf8').replace(/\r\n/g, '\n');
  return { headers, [kind]: content, attachments: [] };
}

const headerTitle = (name: string) =>
  name
    .replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase())
    .replace(/^Message-Id$/, 'Message-ID');

/**
 * Parses a submitted message. Recipients are the envelope's: those in the To/Cc headers are
 * recorded as to/cc, every other envelope recipient as bcc (Bcc headers are removed, never sent).
 */
export async function parseSubmission(
  rawIn: Buffer,
  envelope: Envelope,
  opts: { fullParser?: boolean } = {},
): Promise<SubmittedMessage> {
  const raw = toCrlf(rawIn);
  let end = raw.indexOf('\r\n\r\n');
  if (raw.subarray(0, 2).toString('latin1') === '\r\n') end = -2; // no header block at all
  const headerEnd = end === -1 ? raw.length : end;
  if (headerEnd > MAX_HEADER_BLOCK)
    throw new AppError('validation_error', `The message header block is larger than ${MAX_HEADER_BLOCK} bytes.`);
  const block =
    end === -2
      ? ''
      : raw
          .subarray(0, headerEnd)
          .toString('latin1')
          .replace(/(\r\n)+$/, '');
  const body = end === -1 ? Buffer.alloc(0) : raw.subarray(Math.max(0, end) + (end === -2 ? 2 : 4));
  const fields = block ? headerFields(block) : [];
  if (block.includes('\0')) throw new AppError('validation_error', 'The message headers contain NUL bytes.');
  const broken = fields.find((f) => !f.name || !/^[\x21-\x39\x3b-\x7e]+$/.test(f.name));
  if (broken)
    throw new AppError(
      'validation_error',
      `Malformed header line: ${JSON.stringify(broken.lines[0].slice(0, 80))} (each header line must be "Name: value", continuation lines start with a space).`,
    );
  const counted = new Map<string, number>();
  for (const f of fields) if (SINGLE_HEADERS.has(f.name)) counted.set(f.name, (counted.get(f.name) ?? 0) + 1);
  const twice = [...counted].find(([name, n]) => n > 1 && name !== 'bcc'); // Bcc lines are removed anyway
  if (twice)
    throw new AppError(
      'message_malformed',
      `The message has ${twice[1]} ${headerTitle(twice[0])} headers; RFC 5322 allows one.`,
    );

  const kept = fields.filter((f) => !DROPPED.has(f.name));
  const first = (name: string) => fields.find((f) => f.name === name);
  const tagFields = fields.filter((f) => f.name === 'x-mailroom-tags');
  const tags = tagFields.flatMap((f) => parseTagsHeader(valueOf(f)));
  if (tags.length > 75) throw invalidField('tags', `at most 75 tags are allowed (got ${tags.length}).`);
  const idemField = first('resend-idempotency-key');
  const idempotencyKey = idemField ? valueOf(idemField) : undefined;
  const messageIdField = first('message-id');
  const messageId = messageIdField ? /^<[^<>\s]+@[^<>\s]+>$/.exec(valueOf(messageIdField))?.[0] : undefined;
  // A Message-ID we cannot use as the email's is replaced by ours rather than sent twice.
  const keptFinal = messageIdField && !messageId ? kept.filter((f) => f.name !== 'message-id') : kept;

  const stripped = Buffer.concat([
    Buffer.from(keptFinal.map((f) => f.lines.join('\r\n')).join('\r\n') + (keptFinal.length ? '\r\n' : ''), 'latin1'),
    Buffer.from('\r\n'),
    body,
  ]);
  const simple = opts.fullParser ? undefined : parseSimple(keptFinal, body);
  const parsed = simple ?? (await parseMime(stripped));
  if (simple) {
    if (simple.text !== undefined) simple.text = simple.text === '' ? undefined : noNul(simple.text.replace(/\n$/, ''));
    if (simple.html !== undefined) simple.html = noNul(simple.html.replace(/\n$/, ''));
  }

  const fromList = headerAddresses(parsed.headers.get('from'));
  if (fromList.length !== 1)
    throw new AppError(
      'invalid_from_address',
      'The message must have a From header with exactly one valid address (`email@example.com` or `Name <email@example.com>`).',
    );
  const from = fromList[0];
  const inHeader = (list: Address[]) => new Set(list.map((a) => a.address.toLowerCase()));
  const toSet = inHeader(headerAddresses(parsed.headers.get('to')));
  const ccSet = inHeader(headerAddresses(parsed.headers.get('cc')));
  const to: Address[] = [],
    cc: Address[] = [],
    bcc: Address[] = [];
  for (const r of envelope.rcptTo) {
    const k = r.address.toLowerCase();
    (toSet.has(k) ? to : ccSet.has(k) ? cc : bcc).push(r);
  }

  const recorded: Record<string, string> = {};
  for (const f of kept) {
    if (!RECORDED.test(f.name) || NOT_RECORDED.has(f.name) || Object.keys(recorded).length >= MAX_RECORDED) continue;
    const name = f.lines[0].slice(0, f.lines[0].indexOf(':')).trim();
    try {
      Object.assign(recorded, validateHeaders({ [name]: valueOf(f) }));
    } catch {
      /* kept in the message, just not recorded */
    }
  }
  const subject =
    typeof parsed.headers.get('subject') === 'string' ? noNul(parsed.headers.get('subject') as string) : '';
  // Optional parts assigned after the literal, not spread into it: a property defined after a
  // spread is slow on Node 20 (webhooks/deliver.job.ts's attemptRecord).
  const request: SendRequest = {
    from,
    to,
    cc,
    bcc,
    replyTo: headerAddresses(parsed.headers.get('reply-to')),
    subject,
    headers: recorded,
    attachments: [],
    tags,
  };
  if (parsed.html !== undefined) request.html = parsed.html;
  if (parsed.text !== undefined) request.text = parsed.text;
  const fingerprint = {
    mail_from: envelope.mailFrom.address,
    from: from.address,
    to: to.map((a) => a.address),
    cc: cc.map((a) => a.address),
    bcc: bcc.map((a) => a.address),
    subject,
    html: parsed.html ?? null,
    text: parsed.text ?? null,
    tags,
    headers: recorded,
    attachments: parsed.attachments,
  };
  const mailer = first('x-mailer') ?? first('user-agent');
  const out: SubmittedMessage = { request, stripped, hasDate: Boolean(first('date')), fingerprint };
  if (messageId) out.messageId = messageId;
  if (idempotencyKey !== undefined) out.idempotencyKey = idempotencyKey;
  if (mailer) out.userAgent = valueOf(mailer).slice(0, 256);
  return out;
}

/** The message to store and sign: Message-ID (on the sending domain) and Date added when missing. */
export function finishMessage(
  msg: SubmittedMessage,
  messageIdDomain: string,
  now: Date,
): { raw: Buffer; messageId: string } {
  const messageId = msg.messageId ?? `<${randomUUID()}@${messageIdDomain}>`;
  const added = [
    ...(msg.messageId ? [] : [`Message-ID: ${messageId}`]),
    ...(msg.hasDate ? [] : [`Date: ${now.toUTCString().replace('GMT', '+0000')}`]),
  ];
  if (!added.length) return { raw: msg.stripped, messageId };
  // Added on top: the header block of `stripped` then stays byte for byte what the client sent.
  return { raw: Buffer.concat([Buffer.from(added.join('\r\n') + '\r\n', 'latin1'), msg.stripped]), messageId };
}

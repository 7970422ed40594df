// Builds the RFC 5322 message for a validated SendRequest with nodemailer's MailComposer:
// multipart/alternative (text + html), related (inline cid images), mixed (attachments), CRLF only.
// Never emits Bcc (the envelope carries those recipients); owns Message-ID generation.
import { randomUUID } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { UNSAFE_HEADER_CHARS, type Address } from '../mime/addresses.js';
import type { ResolvedAttachment } from './attachments.js';
import { htmlToText } from '../mime/html-to-text.js';
import { writeSimpleMessage } from '../mime/mime-fast.js';
import type { SendRequest } from './validate.js';

export interface ComposeOptions {
  /** Right-hand side of the Message-ID, e.g. the sending domain. */
  messageIdDomain: string;
  date: Date;
  /** Headers Mailroom adds (List-Unsubscribe, Feedback-ID, …); they replace caller headers of the same name. */
  extraHeaders?: Record<string, string>;
  /** The Message-ID to use (with angle brackets) when the email already has one: a broadcast email rendered at delivery. */
  messageId?: string;
}

export interface Composed {
  raw: Buffer;
  /** With angle brackets, as in the header. */
  messageId: string;
}

const toNodemailer = (list: Address[]) => list.map((a) => ({ name: a.name ?? '', address: a.address }));

/** The text/plain body the message will carry: given text, '' for none, or generated from html. */
export const plainTextFor = (req: Pick<SendRequest, 'html' | 'text'>): string =>
  req.text !== undefined ? req.text : req.html ? htmlToText(req.html) : '';

function mergeHeaders(caller: Record<string, string>, ours: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const oursLower = new Set(Object.keys(ours).map((k) => k.toLowerCase()));
  for (const [k, v] of Object.entries(caller)) if (!oursLower.has(k.toLowerCase())) out[k] = v;
  for (const [k, v] of Object.entries(ours)) {
    // Ours are trusted but cheap to guard: a line break here would be header injection.
    if (UNSAFE_HEADER_CHARS.test(k) || UNSAFE_HEADER_CHARS.test(v) || /[\s:]/.test(k))
      throw new Error(`composeMessage: unsafe extra header ${JSON.stringify(k)}`);
    out[k] = v;
  }
  return out;
}

/**
 * Composes the raw message. Attachments must carry bytes: fetch `path` ones first with
 * resolveAttachments (a `path` here is a programming error, not a client error).
 */
export async function composeMessage(req: SendRequest, opts: ComposeOptions): Promise<Composed> {
  if (!/^[a-z0-9.-]{1,253}$/i.test(opts.messageIdDomain))
    throw new Error(`composeMessage: bad messageIdDomain ${JSON.stringify(opts.messageIdDomain)}`);
  const messageId = opts.messageId ?? `<${randomUUID()}@${opts.messageIdDomain}>`;
  const attachments = req.attachments.map((a) => {
    if (!a.content) throw new Error('composeMessage: resolve `path` attachments before composing');
    const r = a as ResolvedAttachment;
    return {
      content: r.content,
      contentType: r.contentType ?? 'application/octet-stream',
      filename: r.filename ?? false,
      ...(r.contentId ? { cid: r.contentId, contentDisposition: 'inline' } : { contentDisposition: 'attachment' }),
    } as const;
  });
  const headers = mergeHeaders(req.headers, opts.extraHeaders ?? {});
  // MailComposer re-cases header names (x-entity-ref-id → X-Entity-Ref-ID); keep the caller's spelling.
  const spelling = new Map(Object.keys(headers).map((k) => [k.toLowerCase(), k]));
  // Bodies may carry bare CR or LF; one form here, and `newline: 'win'` writes CRLF on the wire.
  const lf = (s: string) => s.replace(/\r\n?/g, '\n');
  const html = req.html !== undefined ? lf(req.html) : undefined;
  const text = lf(plainTextFor({ html, text: req.text }));

  if (!req.attachments.length) {
    const raw = writeSimpleMessage({
      from: req.from,
      to: req.to,
      cc: req.cc,
      replyTo: req.replyTo,
      subject: req.subject,
      messageId,
      date: opts.date,
      text,
      html,
      headers,
    });
    return { raw, messageId };
  }

  const composer = new MailComposer({
    from: { name: req.from.name ?? '', address: req.from.address },
    to: toNodemailer(req.to),
    ...(req.cc.length ? { cc: toNodemailer(req.cc) } : {}),
    ...(req.replyTo.length ? { replyTo: toNodemailer(req.replyTo) } : {}),
    subject: req.subject,
    messageId,
    date: opts.date,
    ...(text ? { text } : {}),
    ...(html ? { html } : {}),
    attachments,
    normalizeHeaderKey: (key: string) => spelling.get(key.toLowerCase()) ?? key,
    newline: 'win',
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  const root = composer.compile();
  // Added after compile so they follow From/To/Subject instead of leading the header block.
  for (const [k, v] of Object.entries(headers)) root.addHeader(k, v);
  const raw = await root.build();
  return { raw, messageId };
}

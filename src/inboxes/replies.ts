// Replies and forwards from an inbox (POST .../emails/:emailId/reply|forward), and the send of a
// draft (drafts.ts): a body for THE send path (emails/send.ts: DKIM, events, webhooks) from the
// inbox's address, with In-Reply-To, References and Reply-To set here (a caller giving them in
// `headers` gets a 422), committed in one transaction with the message's filing into the thread.
import { AppError, invalidField } from '../errors.js';
import { uuid } from '../lib/ids.js';
import { formatAddress, parseAddressList } from '../mime/addresses.js';
import type { EmailSender, SendContext } from '../emails/send.js';
import { withIdempotency } from '../emails/idempotency.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { blobRead } from '../store/blobs.js';
import { receivedAttachmentList } from '../store/received-emails.js';
import type { InboxRow } from '../store/inboxes.js';
import type { MessageRow } from '../store/inbox-messages.js';
import type { AcceptedEmail, IdempotencyCompletion } from '../store/emails.js';
import { fileMessage, type FiledMessage } from './filing.js';
import { threadMessageOf } from './threads.js';

const OURS = new Set(['in-reply-to', 'references', 'reply-to']);
const MAX_ATTACHMENTS = 10;
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
const MAX_BODY = 5 * 1024 * 1024; // html or text of one message

export interface InboxMailDeps {
  pool: Pool;
  sender: EmailSender;
}

/** Custom headers without the ones we set (any letter case); null/undefined: none. */
export function callerHeaders(v: unknown): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw invalidField('headers', 'must be an object of string values.');
  for (const name of Object.keys(v))
    if (OURS.has(name.toLowerCase()))
      throw invalidField('headers', `the \`${name}\` header is set by the inbox and cannot be given.`);
  return v as Record<string, unknown>;
}

function optionalBody(body: Record<string, unknown>, field: 'html' | 'text' | 'subject'): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidField(field, 'must be a string.');
  if (v.length > MAX_BODY) throw invalidField(field, `must be at most ${MAX_BODY} characters.`);
  return v;
}

function attachmentsOf(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidField('attachments', 'must be an array.');
  if (v.length > MAX_ATTACHMENTS) throw invalidField('attachments', `at most ${MAX_ATTACHMENTS} files.`);
  return v;
}

const sender = (inbox: InboxRow) =>
  formatAddress({ name: inbox.from_name ?? undefined, address: inbox.email_address, domain: '' });

/** References for an answer to `m`: its own References (or In-Reply-To) and its Message-ID, fitting one header line. */
export function referencesFor(m: Pick<MessageRow, 'refs' | 'message_id'>): string | undefined {
  const ids = [...m.refs, ...(m.message_id ? [m.message_id] : [])].filter((x, i, a) => a.indexOf(x) === i);
  // Keep the first and the newest (RFC 5322 3.6.4).
  while (ids.length > 1 && ids.join(' ').length > 900) ids.splice(1, 1);
  return ids.length ? ids.join(' ') : undefined;
}

const prefixed = (prefix: string, subject: string | null) => {
  const s = subject?.trim() || '(no subject)';
  return new RegExp(`^${prefix}:`, 'i').test(s) ? s : `${prefix}: ${s}`;
};

const addressesOf = (v: unknown, field: string) =>
  v === undefined || v === null ? [] : parseAddressList(v, field).map((a) => formatAddress(a));

/**
 * Sends `body` (a POST /emails body) from the inbox and files it into `threadId` in one
 * transaction with the email (and the idempotency key's answer); returns the email's id.
 */
export async function sendFromInbox(
  deps: InboxMailDeps,
  ctx: SendContext,
  inbox: InboxRow,
  threadId: string | undefined,
  body: Record<string, unknown>,
  complete: (status: number, body: unknown) => IdempotencyCompletion | undefined,
  also?: (tx: Queryable, email: AcceptedEmail, threadId: string) => Promise<void>,
): Promise<{ status: number; body: { id: string } }> {
  const email = await deps.sender.prepare(ctx, { ...body, from: sender(inbox) }, { allowAttachments: true });
  const res = { id: email.row.id };
  await withTx(deps.pool, async (tx) => {
    await deps.sender.commitIn(tx, [email], complete(200, res));
    const r = email.row;
    const headers = (body.headers ?? {}) as Record<string, string>;
    const filed: FiledMessage = {
      id: r.id,
      sourceId: r.id,
      direction: 'outbound',
      messageId: r.message_id,
      refs: (headers.References ?? '').match(/<[^<>\s]+>/g) ?? [],
      from: inbox.email_address,
      to: r.to_addrs,
      cc: r.cc_addrs,
      bcc: r.bcc_addrs,
      replyTo: r.reply_to,
      subject: r.subject,
      html: r.html,
      text: r.text_body,
      attachments: ((body.attachments ?? []) as { filename?: string; content?: string; content_type?: string }[]).map(
        (a) => ({
          id: uuid(),
          filename: a.filename ?? null,
          size: typeof a.content === 'string' ? Math.floor((a.content.length * 3) / 4) : null,
          content_type: a.content_type ?? 'application/octet-stream',
        }),
      ),
      at: new Date(),
      threadId,
    };
    const tid = await fileMessage(tx, inbox, filed, 'api');
    await also?.(tx, email, tid);
  });
  return { status: 200, body: res };
}

type Answer = 'reply' | 'forward';

/** Who a reply to `m` goes to: its Reply-To or sender (inbound), its recipients (one we sent). */
export function replyTarget(m: MessageRow, own: string): string[] {
  const to = m.direction === 'inbound' ? (m.reply_to.length ? m.reply_to : [m.from]) : m.to;
  const others = to.filter((a) => a.toLowerCase() !== own);
  return others.length ? others : to;
}

/** In-Reply-To and References of a reply to `m`. */
export function answerHeaders(m: MessageRow): Record<string, string> {
  const references = referencesFor(m);
  return {
    ...(m.message_id ? { 'In-Reply-To': m.message_id } : {}),
    ...(references ? { References: references } : {}),
  };
}

/** The Re: subject of a reply to `m`. */
export const replySubject = (m: MessageRow) => prefixed('Re', m.subject);

/** POST .../threads/:threadId/emails/:emailId/reply | forward. */
export async function answer(
  deps: InboxMailDeps,
  ctx: SendContext,
  ref: { inbox: string; threadId: string; emailId: string },
  kind: Answer,
  body: Record<string, unknown>,
  idempotencyKey: string | undefined,
) {
  const headers = callerHeaders(body.headers);
  const html = optionalBody(body, 'html');
  const text = optionalBody(body, 'text');
  const subject = optionalBody(body, 'subject');
  const extra = attachmentsOf(body.attachments);
  if (kind === 'reply' && html === undefined && text === undefined)
    throw new AppError('missing_required_field', 'Missing `html` or `text` field.');
  if (body.reply_all !== undefined && body.reply_all !== null && typeof body.reply_all !== 'boolean')
    throw invalidField('reply_all', 'must be a boolean.');
  const {
    inbox,
    thread,
    message: m,
  } = await threadMessageOf(deps.pool, ctx.teamId, ref.inbox, ref.threadId, ref.emailId);
  const own = inbox.email_address;
  const notOwn = (a: string) => a.toLowerCase() !== own;
  let send: Record<string, unknown>;
  const references = referencesFor(m);
  if (kind === 'reply') {
    const to = replyTarget(m, own);
    const cc = addressesOf(body.cc, 'cc');
    if (body.reply_all === true) {
      const seen = new Set([...to, ...cc].map((a) => a.toLowerCase()));
      for (const a of m.direction === 'inbound' ? [...m.to, ...m.cc] : m.cc)
        if (notOwn(a) && !seen.has(a.toLowerCase())) {
          seen.add(a.toLowerCase());
          cc.push(a);
        }
    }
    send = {
      to,
      cc,
      bcc: addressesOf(body.bcc, 'bcc'),
      subject: subject ?? prefixed('Re', m.subject),
      html,
      text,
      attachments: extra,
      reply_to: own,
      headers: { ...headers, ...answerHeaders(m) },
    };
  } else {
    if (body.to === undefined || body.to === null) throw new AppError('missing_required_field', 'Missing `to` field.');
    const originals = await originalAttachments(deps.pool, ctx.teamId, m);
    if (originals.length + extra.length > MAX_ATTACHMENTS)
      throw invalidField('attachments', `a forward carries at most ${MAX_ATTACHMENTS} files, the original's included.`);
    send = {
      to: addressesOf(body.to, 'to'),
      cc: addressesOf(body.cc, 'cc'),
      bcc: addressesOf(body.bcc, 'bcc'),
      subject: subject ?? prefixed('Fwd', m.subject),
      ...forwardedBodies(m, html, text),
      attachments: [...originals, ...extra],
      reply_to: own,
      headers: { ...headers, ...(references ? { References: references } : {}) },
    };
  }
  const path = `/inboxes/${inbox.id}/threads/${thread.id}/emails/${m.id}/${kind}`;
  const res = await withIdempotency(
    deps.pool,
    { teamId: ctx.teamId, method: 'POST', path },
    idempotencyKey,
    body,
    (complete) => sendFromInbox(deps, ctx, inbox, thread.id, send, complete),
  );
  return res.body;
}

/** The forwarded message below the caller's words, as mail clients write it. */
function forwardedBodies(m: MessageRow, html?: string, text?: string) {
  const head = [
    '---------- Forwarded message ---------',
    `From: ${m.from}`,
    `Date: ${new Date(m.received_at).toUTCString()}`,
    `Subject: ${m.subject ?? ''}`,
    `To: ${m.to.join(', ')}`,
  ];
  const esc = (s: string) =>
    s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const t = `${text ?? ''}\n\n${head.join('\n')}\n\n${m.text ?? ''}`.trimStart();
  const h =
    html !== undefined || m.html
      ? `${html ?? (text ? `<p>${esc(text)}</p>` : '')}<br><div>${head.map(esc).join('<br>')}</div><br><blockquote>${
          m.html ?? `<pre>${esc(m.text ?? '')}</pre>`
        }</blockquote>`
      : undefined;
  if (t.length > MAX_BODY || (h && h.length > 2 * MAX_BODY)) throw invalidField('html', 'the forward is too long.');
  return { text: t, ...(h ? { html: h } : {}) };
}

/** The original's attachments as send-path attachments (content as base64); 25 MB at most. */
export async function originalAttachments(pool: Pool, teamId: string, m: MessageRow) {
  if (!m.attachments.length) return [];
  if (m.direction === 'outbound')
    throw invalidField('attachments', 'the attachments of a sent message cannot be forwarded; attach them again.');
  const wanted = new Set(m.attachments.map((a) => a.id));
  const rows = (await receivedAttachmentList(pool, teamId, m.source_id)).filter((a) => wanted.has(a.id));
  let total = 0;
  const out: { filename: string; content: string; content_type: string }[] = [];
  for (const a of rows) {
    total += a.size;
    if (total > MAX_ATTACHMENT_BYTES) throw invalidField('attachments', "the original's attachments exceed 25 MB.");
    if (!a.blob_id)
      throw invalidField('attachments', `the original's attachment ${a.filename ?? a.id} is no longer stored.`);
    const content = await blobRead(pool, a.blob_id);
    out.push({
      filename: a.filename ?? 'attachment',
      content: content.toString('base64'),
      content_type: a.content_type,
    });
  }
  return out;
}

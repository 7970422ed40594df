// An inbox's drafts (/inboxes/:inbox/drafts): standalone, or a reply to one email of a thread;
// attachments given as content or fetched from a `path` URL when the request is made, through
// the SSRF guard attachment URLs of sends use (emails/attachment-fetch.ts), 25 MB a draft.
// Sending a draft goes through replies.ts's sendFromInbox (the one send path) and deletes the
// draft in the same transaction. Changes record inbox.draft.* events.
import { AppError, invalidField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { formatAddress, parseAddressList, UNSAFE_HEADER_CHARS } from '../mime/addresses.js';
import { normalizeAttachment, resolveAttachments } from '../emails/attachments.js';
import { withIdempotency } from '../emails/idempotency.js';
import type { SendContext } from '../emails/send.js';
import { MAX_SUBJECT } from '../emails/validate.js';
import { withTx, type Queryable } from '../store/db.js';
import {
  draftAttachmentsRead,
  draftCount,
  draftAttachmentsReplace,
  draftDelete,
  draftFind,
  draftInsert,
  draftList,
  draftUpdate,
  type DraftAttachment,
  type DraftFields,
  type DraftRow,
} from '../store/inbox-drafts.js';
import { resourceEventInsert } from '../store/resource-events.js';
import type { PageQuery } from '../store/paginate.js';
import { threadSummary } from '../store/inbox-threads.js';
import { inboxOf, iso } from './inboxes.js';
import {
  answerHeaders,
  callerHeaders,
  MAX_ATTACHMENT_BYTES,
  replySubject,
  replyTarget,
  sendFromInbox,
  type InboxMailDeps,
} from './replies.js';
import { threadMessageOf, type EventSource } from './threads.js';

export interface DraftDeps extends InboxMailDeps {
  allowPrivateNetworks: boolean;
}

const MAX_FILES = 20;
const MAX_DRAFTS = 1000; // an inbox's
const MAX_ADDRESSES = 50;
const MAX_BODY = 5 * 1024 * 1024;
const SNIPPET = 160;

const eventDraft = (d: DraftRow) => ({
  object: 'inbox_draft' as const,
  id: d.id,
  type: d.type,
  to: d.to_addrs,
  cc: d.cc_addrs,
  bcc: d.bcc_addrs,
  subject: d.subject,
  thread_id: d.thread_id,
  reply_to_email_id: d.reply_to_email_id,
  email_id: null,
  created_at: iso(d.created_at)!,
  updated_at: iso(d.updated_at)!,
  attachments: d.attachments,
});
const draftView = (d: DraftRow) => ({ ...eventDraft(d), html: d.html, text: d.text_body });

function snippetOf(d: DraftRow): string | null {
  const src =
    d.text_body ?? (d.html ? d.html.replace(/<(style|script)[\s\S]*?<\/\1>/gi, ' ').replace(/<[^>]*>/g, ' ') : '');
  const s = src
    .replace(/&nbsp;/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return s ? s.slice(0, SNIPPET) : null;
}

const listItem = (d: DraftRow) => ({
  id: d.id,
  type: d.type,
  to: d.to_addrs,
  cc: d.cc_addrs,
  bcc: d.bcc_addrs,
  subject: d.subject,
  snippet: snippetOf(d),
  thread_id: d.thread_id,
  reply_to_email_id: d.reply_to_email_id,
  updated_at: iso(d.updated_at)!,
  attachments: d.attachments,
});

function addresses(body: Record<string, unknown>, field: 'to' | 'cc' | 'bcc'): string[] | null | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null) return null;
  const list = parseAddressList(v, field);
  if (list.length > MAX_ADDRESSES) throw invalidField(field, `at most ${MAX_ADDRESSES} addresses.`);
  return list.map(formatAddress);
}

function text(
  body: Record<string, unknown>,
  field: 'subject' | 'html' | 'text',
  max: number,
): string | null | undefined {
  const v = body[field];
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') throw invalidField(field, 'must be a string.');
  if (v.length > max) throw invalidField(field, `must be at most ${max} characters.`);
  if (field === 'subject' && UNSAFE_HEADER_CHARS.test(v))
    throw invalidField(field, 'line breaks and control characters are not allowed.');
  return v;
}

function fieldsOf(body: Record<string, unknown>): DraftFields {
  const cc = addresses(body, 'cc');
  const bcc = addresses(body, 'bcc');
  return {
    to_addrs: addresses(body, 'to'),
    cc_addrs: cc === null ? [] : cc,
    bcc_addrs: bcc === null ? [] : bcc,
    subject: text(body, 'subject', MAX_SUBJECT),
    html: text(body, 'html', MAX_BODY),
    text_body: text(body, 'text', MAX_BODY),
  };
}

/** The draft's files: given content, or a `path` fetched now through the guard; 25 MB together. */
async function filesOf(deps: DraftDeps, v: unknown): Promise<DraftAttachment[] | undefined> {
  if (v === undefined) return undefined;
  if (v === null) return [];
  if (!Array.isArray(v)) throw invalidField('attachments', 'must be an array.');
  if (v.length > MAX_FILES) throw invalidField('attachments', `at most ${MAX_FILES} files a draft.`);
  const list = v.map((a, i) => normalizeAttachment(a, i));
  let given = 0;
  for (const a of list) given += a.content?.length ?? 0;
  if (given > MAX_ATTACHMENT_BYTES) throw invalidField('attachments', 'the files of a draft can total at most 25 MB.');
  const resolved = await resolveAttachments(list, {
    allowPrivateNetworks: deps.allowPrivateNetworks,
    maxBytes: MAX_ATTACHMENT_BYTES - given,
    timeoutMs: 15_000,
  });
  return resolved.map((a, i) => {
    if (!a.content.length) throw invalidField(`attachments[${i}]`, 'the file is empty.');
    if (!a.filename) throw invalidField(`attachments[${i}].filename`, 'is required.');
    return { filename: a.filename, content_type: a.contentType, content: a.content };
  });
}

async function draftOf(db: Queryable, inboxId: string, id: string, lock = false): Promise<DraftRow> {
  const d = isUuid(id) ? await draftFind(db, inboxId, id.toLowerCase(), lock) : undefined;
  if (!d) throw notFound('Draft');
  return d;
}

async function draftEvent(
  tx: Queryable,
  teamId: string,
  d: DraftRow,
  type: 'inbox.draft.created' | 'inbox.draft.updated' | 'inbox.draft.deleted',
  source: EventSource = 'api',
) {
  const thread = d.thread_id ? await threadSummary(tx, d.inbox_id, d.thread_id) : undefined;
  await resourceEventInsert(tx, teamId, d.id, type, {
    source,
    inbox_id: d.inbox_id,
    ...(d.thread_id ? { thread_id: d.thread_id } : {}),
    draft_id: d.id,
    ...(thread ? { thread: { object: 'inbox_thread', ...thread, assignee_email: undefined } } : {}),
    draft: eventDraft(d),
  });
}

const CONTENT_FIELDS = ['to', 'cc', 'bcc', 'subject', 'text', 'html', 'attachments'];

export async function draftCreate(
  deps: DraftDeps,
  teamId: string,
  inboxRef: string,
  body: Record<string, unknown>,
  key: string | undefined,
  source: EventSource = 'api',
) {
  if (!CONTENT_FIELDS.some((f) => body[f] !== undefined))
    throw new AppError('validation_error', `Give at least one of ${CONTENT_FIELDS.map((f) => `\`${f}\``).join(', ')}.`);
  const threadId = body.thread_id;
  const emailId = body.reply_to_email_id;
  if ((threadId === undefined || threadId === null) !== (emailId === undefined || emailId === null))
    throw invalidField('thread_id', 'a reply draft needs both `thread_id` and `reply_to_email_id`.');
  const inbox = await inboxOf(deps.pool, teamId, inboxRef);
  const reply =
    typeof threadId === 'string' && typeof emailId === 'string'
      ? await threadMessageOf(deps.pool, teamId, inbox.id, threadId, emailId)
      : undefined;
  if (threadId !== undefined && threadId !== null && !reply) throw invalidField('thread_id', 'must be a thread id.');
  const fields = fieldsOf(body);
  const files = await filesOf(deps, body.attachments);
  const res = await withIdempotency(
    deps.pool,
    { teamId, method: 'POST', path: `/inboxes/${inbox.id}/drafts` },
    key,
    body,
    async (complete) =>
      withTx(deps.pool, async (tx) => {
        if ((await draftCount(tx, inbox.id)) >= MAX_DRAFTS)
          throw new AppError('validation_error', `An inbox can have at most ${MAX_DRAFTS} drafts.`);
        const id = await draftInsert(
          tx,
          {
            team_id: teamId,
            inbox_id: inbox.id,
            type: reply ? 'reply' : 'standalone',
            thread_id: reply?.thread.id ?? null,
            reply_to_email_id: reply?.message.id ?? null,
          },
          fields,
        );
        if (files?.length) await draftAttachmentsReplace(tx, id, files);
        await draftEvent(tx, teamId, (await draftFind(tx, inbox.id, id))!, 'inbox.draft.created', source);
        const out = { object: 'inbox_draft' as const, id };
        await deps.sender.commitIn(tx, [], complete(201, out));
        return { status: 201, body: out };
      }),
  );
  return res;
}

export async function draftGet(db: Queryable, teamId: string, inboxRef: string, id: string) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  return draftView(await draftOf(db, inbox.id, id));
}

export async function draftsList(db: Queryable, teamId: string, inboxRef: string, page: PageQuery) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  const c = page.after ?? page.before;
  if (c && !(isUuid(c) && (await draftFind(db, inbox.id, c))))
    throw new AppError(
      'validation_error',
      `The \`${page.after ? 'after' : 'before'}\` cursor does not match any item.`,
    );
  const p = await draftList(db, inbox.id, { limit: page.limit ?? 20, after: page.after, before: page.before });
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(listItem) };
}

export async function draftChange(
  deps: DraftDeps,
  teamId: string,
  inboxRef: string,
  id: string,
  body: Record<string, unknown>,
) {
  if (!CONTENT_FIELDS.some((f) => body[f] !== undefined))
    throw new AppError('validation_error', `Give at least one of ${CONTENT_FIELDS.map((f) => `\`${f}\``).join(', ')}.`);
  const fields = fieldsOf(body);
  const files = await filesOf(deps, body.attachments);
  return withTx(deps.pool, async (tx) => {
    const inbox = await inboxOf(tx, teamId, inboxRef);
    const d = await draftOf(tx, inbox.id, id, true);
    await draftUpdate(tx, d.id, fields);
    if (files) await draftAttachmentsReplace(tx, d.id, files);
    await draftEvent(tx, teamId, (await draftFind(tx, inbox.id, d.id))!, 'inbox.draft.updated');
    return { object: 'inbox_draft' as const, id: d.id };
  });
}

export async function draftRemove(deps: DraftDeps, teamId: string, inboxRef: string, id: string) {
  return withTx(deps.pool, async (tx) => {
    const inbox = await inboxOf(tx, teamId, inboxRef);
    const d = await draftOf(tx, inbox.id, id, true);
    await draftDelete(tx, inbox.id, d.id);
    await draftEvent(tx, teamId, d, 'inbox.draft.deleted');
    return { object: 'inbox_draft' as const, id: d.id, deleted: true };
  });
}

/** Sends a draft from the inbox (a reply draft as a reply to its email) and deletes it, in one transaction. */
export async function draftSend(
  deps: DraftDeps,
  ctx: SendContext,
  inboxRef: string,
  id: string,
  body: Record<string, unknown>,
  key: string | undefined,
) {
  const headers = callerHeaders(body.headers);
  const inbox = await inboxOf(deps.pool, ctx.teamId, inboxRef);
  const d = await draftOf(deps.pool, inbox.id, id);
  const original =
    d.thread_id && d.reply_to_email_id
      ? (await threadMessageOf(deps.pool, ctx.teamId, inbox.id, d.thread_id, d.reply_to_email_id)).message
      : undefined;
  if (d.type === 'reply' && !original) throw invalidField('reply_to_email_id', 'the email this draft answers is gone.');
  const to = d.to_addrs?.length ? d.to_addrs : original ? replyTarget(original, inbox.email_address) : null;
  if (!to?.length) throw new AppError('missing_required_field', 'The draft has no `to` address.');
  const subject = d.subject ?? (original ? replySubject(original) : null);
  if (!subject) throw new AppError('missing_required_field', 'The draft has no `subject`.');
  if (d.html === null && d.text_body === null)
    throw new AppError('missing_required_field', 'The draft has no `html` or `text`.');
  const files = await draftAttachmentsRead(deps.pool, d.id);
  const send = {
    to,
    cc: d.cc_addrs,
    bcc: d.bcc_addrs,
    subject,
    ...(d.html !== null ? { html: d.html } : {}),
    ...(d.text_body !== null ? { text: d.text_body } : {}),
    attachments: files.map((f) => ({
      filename: f.filename,
      content_type: f.content_type,
      content: f.content.toString('base64'),
    })),
    reply_to: inbox.email_address,
    headers: { ...headers, ...(original ? answerHeaders(original) : {}) },
  };
  const res = await withIdempotency(
    deps.pool,
    { teamId: ctx.teamId, method: 'POST', path: `/inboxes/${inbox.id}/drafts/${d.id}/send` },
    key,
    body,
    (complete) =>
      sendFromInbox(deps, ctx, inbox, d.thread_id ?? undefined, send, complete, async (tx, email, threadId) => {
        if (!(await draftDelete(tx, inbox.id, d.id))) throw notFound('Draft'); // sent meanwhile: roll back
        const r = email.row;
        const thread = await threadSummary(tx, inbox.id, threadId);
        await resourceEventInsert(tx, ctx.teamId, d.id, 'inbox.draft.sent', {
          source: 'api',
          inbox_id: inbox.id,
          thread_id: threadId,
          thread: { object: 'inbox_thread', ...thread, assignee_email: undefined },
          email_id: r.id,
          email: {
            id: r.id,
            direction: 'outbound',
            from: inbox.email_address,
            to: r.to_addrs,
            cc: r.cc_addrs,
            bcc: r.bcc_addrs,
            reply_to: r.reply_to,
            subject: r.subject,
            message_id: r.message_id,
            attachments: d.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size })),
            read: true,
            received_at: new Date().toISOString(),
          },
          draft_id: d.id,
          draft: { ...eventDraft(d), email_id: r.id },
        });
      }),
  );
  return res.body;
}

// An inbox's threads (/inboxes/:inbox/threads/*): list with folder, label and read filters, full
// text search, read state, folder moves, assignment to a team member (beyond the SDK:
// `assignee_email` on PATCH), labels on a thread, the thread's emails, removal. Changes record
// their inbox.thread.* events in the same transaction. SQL in store/inbox-threads.ts.
import { AppError, invalidField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { labelsFindMany } from '../store/inboxes.js';
import {
  threadAssign,
  threadDelete,
  threadFind,
  threadLabelsAdd,
  threadLabelsOf,
  threadLabelsRemove,
  threadList,
  threadSearch,
  threadSummary,
  threadUpdate,
  teamMemberByEmail,
  type Folder,
  type ThreadListRow,
  type ThreadRow,
} from '../store/inbox-threads.js';
import { messageFind, messageList, type MessageRow } from '../store/inbox-messages.js';
import { resourceEventInsert } from '../store/resource-events.js';
import { type PageQuery, pageOf } from '../store/paginate.js';
import { inboxOf, iso } from './inboxes.js';

export const FOLDERS: readonly Folder[] = ['inbox', 'archive', 'spam', 'sent', 'trash'];
const MOVE_FOLDERS: readonly Folder[] = ['inbox', 'archive', 'spam', 'trash'];
const MAX_LABELS_PER_CALL = 10;
const MAX_QUERY = 500;
const MAX_SEARCH_RESULTS = 1000;
const MAX_LIST_ITEMS = 50;

const threadView = (t: ThreadListRow) => ({
  id: t.id,
  subject: t.subject,
  from: t.from,
  to: t.to,
  cc: t.cc,
  bcc: t.bcc,
  labels: t.labels,
  email_count: t.email_count,
  has_attachment: t.has_attachment,
  has_draft: t.has_draft,
  read: t.read,
  received_at: iso(t.received_at)!,
  folder: t.folder,
  ...(t.matched_email_id !== undefined ? { matched_email_id: t.matched_email_id } : {}),
});

export const messageView = (m: MessageRow) => ({
  id: m.id,
  direction: m.direction,
  from: m.from,
  to: m.to,
  cc: m.cc,
  bcc: m.bcc,
  reply_to: m.reply_to,
  subject: m.subject,
  message_id: m.message_id,
  html: m.html,
  text: m.text,
  attachments: m.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size })),
  read: m.read,
  received_at: iso(m.received_at)!,
});

/** A comma list of a query string (the SDK joins arrays with commas), bounded. */
function listParam(q: Record<string, string | undefined>, field: string, check: (v: string) => boolean, what: string) {
  const raw = q[field];
  if (raw === undefined || raw === '') return undefined;
  const items = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (items.length > MAX_LIST_ITEMS) throw invalidField(field, `at most ${MAX_LIST_ITEMS} values.`);
  for (const v of items) if (!check(v)) throw invalidField(field, `${JSON.stringify(v.slice(0, 80))} is not ${what}.`);
  return items;
}

function boolParam(q: Record<string, string | undefined>, field: string): boolean | undefined {
  const v = q[field];
  if (v === undefined || v === '') return undefined;
  if (v !== 'true' && v !== 'false') throw invalidField(field, 'must be true or false.');
  return v === 'true';
}

function dateParam(q: Record<string, string | undefined>, field: string): Date | undefined {
  const v = q[field];
  if (v === undefined || v === '') return undefined;
  const d = new Date(v);
  if (v.length > 40 || Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1970 || d.getUTCFullYear() > 9999)
    throw invalidField(field, 'must be an ISO 8601 date.');
  return d;
}

function filterOf(q: Record<string, string | undefined>) {
  return {
    folders: listParam(q, 'folders', (v) => (FOLDERS as string[]).includes(v), 'a folder') as Folder[] | undefined,
    labels: listParam(q, 'labels', isUuid, 'a label id'),
    read: boolParam(q, 'read'),
  };
}

async function threadOf(db: Queryable, inboxId: string, threadId: string): Promise<ThreadRow> {
  const t = isUuid(threadId) ? await threadFind(db, inboxId, threadId.toLowerCase()) : undefined;
  if (!t) throw notFound('Thread');
  return t;
}

async function checkCursor(db: Queryable, inboxId: string, page: PageQuery) {
  const c = page.after ?? page.before;
  if (c && !(isUuid(c) && (await threadFind(db, inboxId, c))))
    throw new AppError(
      'validation_error',
      `The \`${page.after ? 'after' : 'before'}\` cursor does not match any item.`,
    );
}

export async function threadsList(
  db: Queryable,
  teamId: string,
  inboxRef: string,
  q: Record<string, string | undefined>,
  page: PageQuery,
) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  const filter = filterOf(q);
  await checkCursor(db, inbox.id, page);
  const p = await threadList(db, inbox.id, filter, { limit: page.limit ?? 20, after: page.after, before: page.before });
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(threadView) };
}

export async function threadsSearch(
  db: Queryable,
  teamId: string,
  inboxRef: string,
  q: Record<string, string | undefined>,
  page: PageQuery,
) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  const query = q.query?.trim();
  if (query && query.length > MAX_QUERY) throw invalidField('query', `must be at most ${MAX_QUERY} characters.`);
  const address = (v: string) => v.length <= 320 && /^[^\s@]+@[^\s@]+$/.test(v);
  const lower = (xs?: string[]) => xs?.map((x) => x.toLowerCase());
  const rows = await threadSearch(
    db,
    inbox.id,
    {
      ...filterOf(q),
      query: query || undefined,
      from: lower(listParam(q, 'from', address, 'an email address')),
      to: lower(listParam(q, 'to', address, 'an email address')),
      cc: lower(listParam(q, 'cc', address, 'an email address')),
      bcc: lower(listParam(q, 'bcc', address, 'an email address')),
      hasAttachment: boolParam(q, 'has_attachment'),
      start: dateParam(q, 'start_date'),
      end: dateParam(q, 'end_date'),
    },
    MAX_SEARCH_RESULTS,
  );
  return pageInMemory(rows.map(threadView), page);
}

/** A page of a ranked list read whole (at most MAX_SEARCH_RESULTS): cursors are its items' ids. */
const pageInMemory = <T extends { id: string }>(all: T[], page: PageQuery) =>
  pageOf(all, { ...page, limit: page.limit ?? 20 });

export async function threadGet(db: Queryable, teamId: string, inboxRef: string, threadId: string) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  const t = await threadOf(db, inbox.id, threadId);
  return summaryOf(db, inbox.id, t.id);
}

async function summaryOf(db: Queryable, inboxId: string, threadId: string) {
  const { assignee_email, ...s } = (await threadSummary(db, inboxId, threadId))!;
  return { object: 'inbox_thread' as const, ...s, assignee_email };
}

/** Who made a change, in the inbox.* events (the SDK's InboxEventSource). */
export type EventSource = 'api' | 'agent';

export async function threadChange(
  pool: Pool,
  teamId: string,
  inboxRef: string,
  threadId: string,
  body: Record<string, unknown>,
  source: EventSource = 'api',
) {
  const { read, folder, assignee_email: assignee } = body;
  if (read !== undefined && typeof read !== 'boolean') throw invalidField('read', 'must be a boolean.');
  if (folder !== undefined && !(MOVE_FOLDERS as unknown[]).includes(folder))
    throw invalidField('folder', `must be one of ${MOVE_FOLDERS.join(', ')}.`);
  if (assignee !== undefined && assignee !== null && (typeof assignee !== 'string' || assignee.length > 320))
    throw invalidField('assignee_email', "must be a team member's email address or null.");
  if (read === undefined && folder === undefined && assignee === undefined)
    throw new AppError('validation_error', 'Give at least one of `read` and `folder`.');
  return withTx(pool, async (tx) => {
    const inbox = await inboxOf(tx, teamId, inboxRef);
    const t = await threadOf(tx, inbox.id, threadId);
    const before = await threadUpdate(tx, inbox.id, t.id, {
      read: read as boolean | undefined,
      folder: folder as Folder | undefined,
    });
    const base = { source, inbox_id: inbox.id, thread_id: t.id };
    if (assignee !== undefined) {
      const member = assignee === null ? null : await teamMemberByEmail(tx, teamId, assignee as string);
      if (member === undefined) throw invalidField('assignee_email', 'is not a member of the team.');
      const prev = await threadAssign(tx, t.id, member?.id ?? null);
      const summary = await summaryOf(tx, inbox.id, t.id);
      if (member)
        await resourceEventInsert(tx, teamId, t.id, 'inbox.thread.assigned', {
          ...base,
          thread: summary,
          assignee_email: member.email,
          assigned_by_email: null,
          previous_assignee_email: prev.previous,
        });
      else if (prev.previous)
        await resourceEventInsert(tx, teamId, t.id, 'inbox.thread.unassigned', {
          ...base,
          thread: summary,
          previous_assignee_email: prev.previous,
        });
    }
    const summary = await summaryOf(tx, inbox.id, t.id);
    if (folder !== undefined && folder !== before)
      await resourceEventInsert(tx, teamId, t.id, 'inbox.thread.folder.updated', {
        ...base,
        thread: summary,
        from: before,
        to: folder,
      });
    return summary;
  });
}

export async function threadRemove(pool: Pool, teamId: string, inboxRef: string, threadId: string) {
  return withTx(pool, async (tx) => {
    const inbox = await inboxOf(tx, teamId, inboxRef);
    const t = await threadOf(tx, inbox.id, threadId);
    await threadDelete(tx, inbox.id, t.id);
    return { object: 'inbox_thread' as const, id: t.id, deleted: true };
  });
}

function labelIds(v: unknown, min: number): string[] {
  if (!Array.isArray(v)) throw invalidField('labels', 'must be an array of label ids.');
  if (v.length < min || v.length > MAX_LABELS_PER_CALL)
    throw invalidField('labels', `must hold between ${min} and ${MAX_LABELS_PER_CALL} label ids.`);
  if (!v.every((x) => typeof x === 'string' && isUuid(x))) throw invalidField('labels', 'must be label ids.');
  return [...new Set(v.map((x: string) => x.toLowerCase()))];
}

/** add | set | remove labels on a thread; returns the thread's labels, records inbox.thread.labels.updated. */
export async function threadLabelsChange(
  pool: Pool,
  teamId: string,
  inboxRef: string,
  threadId: string,
  op: 'add' | 'set' | 'remove',
  v: unknown,
  source: EventSource = 'api',
) {
  const ids =
    op === 'remove' ? (isUuid(String(v)) ? [String(v).toLowerCase()] : []) : labelIds(v, op === 'set' ? 0 : 1);
  return withTx(pool, async (tx) => {
    const inbox = await inboxOf(tx, teamId, inboxRef);
    const t = await threadOf(tx, inbox.id, threadId);
    const known = await labelsFindMany(tx, inbox.id, ids);
    if (known.length !== ids.length) {
      if (op === 'remove') throw notFound('Label');
      const missing = ids.find((id) => !known.some((l) => l.id === id));
      throw invalidField('labels', `no label of this inbox has the id ${missing}.`);
    }
    const current = (await threadLabelsOf(tx, t.id)).map((l) => l.id);
    const add = op === 'remove' ? [] : ids.filter((id) => !current.includes(id));
    const remove = op === 'remove' ? ids : op === 'set' ? current.filter((id) => !ids.includes(id)) : [];
    const added = add.length ? await threadLabelsAdd(tx, t.id, add) : [];
    const removedIds = remove.length ? await threadLabelsRemove(tx, t.id, remove) : [];
    const removed = removedIds.length
      ? (await labelsFindMany(tx, inbox.id, removedIds)).map(({ id, name, color }) => ({ id, name, color }))
      : [];
    const labels = await threadLabelsOf(tx, t.id);
    if (added.length || removed.length)
      await resourceEventInsert(tx, teamId, t.id, 'inbox.thread.labels.updated', {
        source,
        inbox_id: inbox.id,
        thread_id: t.id,
        thread: await summaryOf(tx, inbox.id, t.id),
        added: labels.filter((l) => added.includes(l.id)),
        removed,
      });
    return { object: 'list' as const, data: labels };
  });
}

export async function threadEmailsList(
  db: Queryable,
  teamId: string,
  inboxRef: string,
  threadId: string,
  page: PageQuery,
) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  const t = await threadOf(db, inbox.id, threadId);
  const c = page.after ?? page.before;
  if (c && !(isUuid(c) && (await messageFind(db, t.id, c))))
    throw new AppError(
      'validation_error',
      `The \`${page.after ? 'after' : 'before'}\` cursor does not match any item.`,
    );
  const p = await messageList(db, t.id, { limit: page.limit ?? 20, after: page.after, before: page.before });
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(messageView) };
}

/** One message of a thread (the row: replies and forwards need more than the view). */
export async function threadMessageOf(
  db: Queryable,
  teamId: string,
  inboxRef: string,
  threadId: string,
  emailId: string,
) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  const t = await threadOf(db, inbox.id, threadId);
  const m = isUuid(emailId) ? await messageFind(db, t.id, emailId.toLowerCase()) : undefined;
  if (!m) throw notFound('Email');
  return { inbox, thread: t, message: m };
}

export async function threadEmailGet(
  db: Queryable,
  teamId: string,
  inboxRef: string,
  threadId: string,
  emailId: string,
) {
  return messageView((await threadMessageOf(db, teamId, inboxRef, threadId, emailId)).message);
}

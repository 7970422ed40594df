// Filing a message into an inbox's threads: by Message-ID first (its In-Reply-To and References
// naming a message already in the inbox, RFC 5322 3.6.4), else by the normalised subject with a
// shared outside participant within FALLBACK_DAYS, else a new thread. Received mail comes from
// inbound/receive.ts once the received email is committed; sent mail from replies.ts and drafts.ts
// (in their transaction), and mail sent from an inbox address through POST /emails, /emails/batch
// or SMTP from the acceptor once committed (fileSent, wired in app.ts).
// Records inbox.thread.created, inbox.email.received|sent in the same transaction, and queues the
// inbox agent's run (inboxes.agent_run) for a new received email when the inbox's agent has an action.
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { inboxesFindByAddresses, inboxesFindByFrom, inboxTouchReceived } from '../store/inboxes.js';
import { receivedAttachmentList, receivedEmailFind, type ReceivedEmailRow } from '../store/received-emails.js';
import {
  threadFindByMessageIds,
  threadFindBySubject,
  threadInsert,
  threadLock,
  threadSummary,
  threadTouch,
} from '../store/inbox-threads.js';
import {
  inboxFiledMark,
  inboxFiledPurge,
  messageInsert,
  receivedUnfiled,
  type MessageAttachment,
} from '../store/inbox-messages.js';
import { resourceEventInsert } from '../store/resource-events.js';
import { agentEnabled } from '../store/inbox-agents.js';
import { INBOX_AGENT_JOB } from '../store/jobs.js';
import { enqueue } from '../queue/enqueue.js';
import { AGENT_MAX_ATTEMPTS } from './agent.js';
import { uuid } from '../lib/ids.js';
import type { AcceptedEmail } from '../store/emails.js';

const FALLBACK_DAYS = 3;
const MAX_REFS = 50; // a long References field keeps its newest ids
const PREFIX = /^\s*((re|fw|fwd|aw|wg|sv|vs|antw|tr|rif|ref)(\s*\[\d+\])?\s*:\s*)+/i;

/** The subject a conversation keeps: no Re:/Fwd: prefixes, spaces collapsed, lower case. */
export const subjectKey = (s: string | null): string =>
  (s ?? '').replace(PREFIX, '').replace(/\s+/g, ' ').trim().toLowerCase();

/** Message-IDs named by In-Reply-To and References, newest last, `<...>` kept. */
export function referencedIds(headers: Record<string, string | string[] | undefined>): string[] {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(' ') : (v ?? ''));
  const ids = `${one(headers.references)} ${one(headers['in-reply-to'])}`.match(/<[^<>\s]{1,900}>/g) ?? [];
  return [...new Set(ids)].slice(-MAX_REFS);
}

export interface FiledMessage {
  id: string;
  /** the received or sent email this message is */
  sourceId: string;
  direction: 'inbound' | 'outbound';
  messageId: string | null;
  refs: string[];
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string | null;
  html: string | null;
  text: string | null;
  attachments: MessageAttachment[];
  at: Date;
  /** a reply or forward from the API: the thread it was written in (no guessing) */
  threadId?: string;
}

/** The event form of a message (InboxEventEmail: no bodies). */
export const emailOfEvent = (m: FiledMessage) => ({
  id: m.id,
  direction: m.direction,
  from: m.from,
  to: m.to,
  cc: m.cc,
  bcc: m.bcc,
  reply_to: m.replyTo,
  subject: m.subject,
  message_id: m.messageId,
  attachments: m.attachments.map((a) => ({ id: a.id, filename: a.filename, size: a.size })),
  read: m.direction === 'outbound',
  received_at: m.at.toISOString(),
});

const lowerAll = (xs: string[]) => xs.map((x) => x.toLowerCase());

/** Files one message into an inbox (in the caller's transaction); returns the thread's id. */
export async function fileMessage(
  tx: Queryable,
  inbox: { id: string; team_id: string; email_address: string },
  m: FiledMessage,
  source: 'api' | 'system' = 'system',
): Promise<string> {
  await threadLock(tx, inbox.id);
  const participants = [...new Set(lowerAll([m.from, ...m.to, ...m.cc]))]
    .filter((a) => a && a !== inbox.email_address)
    .sort();
  const key = subjectKey(m.subject);
  let threadId =
    m.threadId ??
    (await threadFindByMessageIds(tx, inbox.id, m.refs)) ??
    (key && participants.length
      ? await threadFindBySubject(
          tx,
          inbox.id,
          key,
          participants,
          new Date(m.at.getTime() - FALLBACK_DAYS * 86_400_000),
        )
      : undefined);
  const inbound = m.direction === 'inbound';
  const created = !threadId;
  if (!threadId) {
    threadId = uuid();
    await threadInsert(tx, {
      id: threadId,
      team_id: inbox.team_id,
      inbox_id: inbox.id,
      subject: m.subject,
      subject_key: key,
      participants,
      folder: inbound ? 'inbox' : 'sent',
      last_message_at: m.at,
    });
  } else {
    await threadTouch(tx, threadId, { at: m.at, participants, inbound });
  }
  const fresh = await messageInsert(tx, {
    id: m.id,
    team_id: inbox.team_id,
    inbox_id: inbox.id,
    thread_id: threadId,
    direction: m.direction,
    source_id: m.sourceId,
    message_id: m.messageId,
    refs: m.refs,
    from_addr: m.from,
    to_addrs: m.to,
    cc_addrs: m.cc,
    bcc_addrs: m.bcc,
    reply_to: m.replyTo,
    subject: m.subject,
    html: m.html,
    text_body: m.text,
    attachments: m.attachments,
    read: !inbound,
    created_at: m.at,
  });
  if (!fresh) return threadId; // filed before (a retried delivery of the same stored email)
  if (inbound) {
    await inboxTouchReceived(tx, inbox.id, m.at);
    await inboxFiledMark(tx, inbox.id, m.sourceId);
    // The inbox agent reads each new received email (agent-run.ts), once committed.
    if (await agentEnabled(tx, inbox.id))
      await enqueue(tx, {
        kind: INBOX_AGENT_JOB,
        payload: { team_id: inbox.team_id, inbox_id: inbox.id, thread_id: threadId, email_id: m.id },
        key: m.id,
        maxAttempts: AGENT_MAX_ATTEMPTS,
      });
  }
  const thread = await threadSummary(tx, inbox.id, threadId);
  const { assignee_email: _a, ...summary } = thread!;
  const data = {
    source,
    inbox_id: inbox.id,
    thread_id: threadId,
    thread: { object: 'inbox_thread', ...summary },
    email_id: m.id,
    email: emailOfEvent(m),
  };
  if (created) await resourceEventInsert(tx, inbox.team_id, threadId, 'inbox.thread.created', data);
  // Keyed by the thread, not the email: an email's own timeline (GET /emails/:id/events) stays its own.
  await resourceEventInsert(tx, inbox.team_id, threadId, inbound ? 'inbox.email.received' : 'inbox.email.sent', data);
  return threadId;
}

/** A stored received email, as inbound/receive.ts has it: the columns filing reads. */
export type ReceivedForInbox = Pick<
  ReceivedEmailRow,
  | 'id'
  | 'team_id'
  | 'received_for'
  | 'from_addr'
  | 'to_addrs'
  | 'cc_addrs'
  | 'bcc_addrs'
  | 'reply_to'
  | 'subject'
  | 'message_id'
  | 'html'
  | 'text_body'
  | 'headers'
  | 'created_at'
>;

type ReceivedAttachment = {
  id: string;
  filename: string | null;
  size: number;
  content_type: string;
  content_disposition: string;
};

/**
 * Files a committed received email into each inbox among its envelope recipients (one
 * transaction); nothing when none of them is an inbox (one indexed query).
 */
export async function fileReceived(
  pool: Pool,
  email: ReceivedForInbox,
  attachments: ReceivedAttachment[],
): Promise<number> {
  const inboxes = await inboxesFindByAddresses(pool, email.team_id, lowerAll(email.received_for));
  if (!inboxes.length) return 0;
  await withTx(pool, async (tx) => {
    // One received email, one message per inbox: the first keeps the received email's id.
    for (const [n, inbox] of inboxes.entries())
      await fileInbound(tx, { ...inbox, team_id: email.team_id }, email, attachments, n === 0 ? email.id : uuid());
  });
  return inboxes.length;
}

const SWEEP_SETTLED_MS = 60_000;
const SWEEP_BATCH = 200;

/** The inboxes.sweep job: files what fileReceived missed (a crash between the two commits). */
export async function fileMissedReceived(pool: Pool, settledMs = SWEEP_SETTLED_MS): Promise<number> {
  await inboxFiledPurge(pool);
  const missed = await receivedUnfiled(pool, settledMs, SWEEP_BATCH);
  for (const x of missed) {
    const email = await receivedEmailFind(pool, x.team_id, x.received_id);
    if (!email) continue;
    const attachments = await receivedAttachmentList(pool, x.team_id, x.received_id);
    await withTx(pool, (tx) =>
      fileInbound(
        tx,
        { id: x.inbox_id, team_id: x.team_id, email_address: x.email_address },
        {
          ...email,
          team_id: x.team_id,
          from_addr: email.from,
          to_addrs: email.to,
          cc_addrs: email.cc,
          bcc_addrs: email.bcc,
          text_body: email.text,
          created_at: new Date(email.created_at).toISOString(),
        },
        attachments,
        x.id_taken ? uuid() : x.received_id,
      ),
    );
  }
  return missed.length;
}

function fileInbound(
  tx: Queryable,
  inbox: { id: string; team_id: string; email_address: string },
  email: ReceivedForInbox,
  attachments: ReceivedAttachment[],
  id: string,
): Promise<string> {
  return fileMessage(tx, inbox, {
    id,
    sourceId: email.id,
    direction: 'inbound',
    messageId: email.message_id,
    refs: referencedIds(email.headers),
    from: email.from_addr,
    to: email.to_addrs,
    cc: email.cc_addrs,
    bcc: email.bcc_addrs,
    replyTo: email.reply_to,
    subject: email.subject || null,
    html: email.html,
    text: email.text_body,
    attachments: attachments
      .filter((a) => a.content_disposition !== 'inline' || a.filename)
      .map((a) => ({ id: a.id, filename: a.filename, size: a.size, content_type: a.content_type })),
    at: new Date(email.created_at),
  });
}

const addressOf = (fromHeader: string) => (/<([^<>]+)>\s*$/.exec(fromHeader)?.[1] ?? fromHeader).trim().toLowerCase();

/**
 * Files committed emails whose From is an inbox address of their team (one query for the batch;
 * nothing more when none is). Scheduled mail is filed when accepted.
 */
export async function fileSent(pool: Pool, emails: AcceptedEmail[]): Promise<number> {
  const rows = emails.map((e) => e.row).filter((r) => !r.broadcast_id && !r.automation_id);
  if (!rows.length) return 0;
  const inboxes = await inboxesFindByFrom(
    pool,
    rows.map((r) => r.team_id),
    rows.map((r) => addressOf(r.from_header)),
  );
  if (!inboxes.length) return 0;
  const byKey = new Map(inboxes.map((i) => [`${i.team_id} ${i.email_address}`, i]));
  let n = 0;
  await withTx(pool, async (tx) => {
    for (const r of rows) {
      const inbox = byKey.get(`${r.team_id} ${addressOf(r.from_header)}`);
      if (!inbox) continue;
      const header = (name: string) => r.headers?.find((h) => h.name.toLowerCase() === name)?.value;
      await fileMessage(
        tx,
        inbox,
        {
          id: r.id,
          sourceId: r.id,
          direction: 'outbound',
          messageId: r.message_id,
          refs: referencedIds({ references: header('references'), 'in-reply-to': header('in-reply-to') }),
          from: inbox.email_address,
          to: r.to_addrs,
          cc: r.cc_addrs,
          bcc: r.bcc_addrs,
          replyTo: r.reply_to,
          subject: r.subject,
          html: r.html,
          text: r.text_body,
          attachments: [],
          at: new Date(r.created_at),
        },
        'api',
      );
      n++;
    }
  });
  return n;
}

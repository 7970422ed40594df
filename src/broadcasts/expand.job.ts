// The `broadcasts.expand` job: turns a broadcast's segment into one email per eligible contact, a
// page at a time, as named steps: check the status (scheduled → queued; paused: look again later;
// canceled or sent: done), check the automatic-pause rates, wait while the broadcast has a full
// window of undelivered emails (pacing), read the next page after the cursor, drop the ineligible,
// turn the others into emails through the page form of THE way in (emails/accept.ts: the same check
// step and event builder as every other email; bodies rendered at delivery), then commit the page's
// emails and the cursor's advance in one transaction. A crash anywhere repeats at most an uncommitted page (nobody twice,
// nobody skipped); the advance is refused if the cursor moved under us (a second run of the job).
import { AppError } from '../errors.js';
import type { Config } from '../config/schema.js';
import type { EmailAcceptor, PageCopy, SendContext } from '../emails/accept.js';
import { parseAddress } from '../mime/addresses.js';
import type { Logger } from '../lib/log.js';
import type { Job, JobContext, JobOutcome } from '../queue/worker.js';
import { withTx, type Pool } from '../store/db.js';
import type { EmailPage } from '../store/emails.js';
import { segmentFind } from '../store/segments.js';
import {
  broadcastAdvance,
  broadcastFindById,
  broadcastPageLock,
  broadcastPauseAuto,
  broadcastQueueDue,
  broadcastQueuedCount,
  type BroadcastRow,
} from '../store/broadcasts.js';
import { broadcastRateCounts } from '../store/broadcast-stats.js';
import { broadcastPageExclusions, type PageExclusions } from '../store/broadcast-recipients.js';
import { segmentRecipientsAfter, type RecipientRow } from '../store/segment-contacts.js'; // static and filter segments alike
import { deliverJobsHoldForBroadcast } from '../store/jobs.js';
import { BroadcastMessage } from './message.js';
import { propertyFallbacks } from './bodies.js';

export interface ExpandPayload {
  broadcast_id: string;
}
export interface ExpandDeps {
  pool: Pool;
  accept: EmailAcceptor;
  config: Config;
  log: Logger;
}

const PAUSED_LOOK_MS = 5_000; // a paused broadcast's job looks again this often (resume also wakes it)
const PACE_WAIT_MS = 250; // the window is full: look again after this
const RUN_BUDGET_MS = 20_000; // then give the slot back (the job is due again at once)

/** Why the broadcast must pause now, or undefined (its running counters: one row, 0034). */
export async function autoPauseReason(pool: Pool, config: Config, id: string): Promise<string | undefined> {
  const c = await broadcastRateCounts(pool, id);
  const sample = c.delivered + c.bounced;
  if (sample < config.broadcastPauseMinSample) return undefined;
  const pct = (x: number) => `${(x * 100).toFixed(2)}%`;
  if (c.complained / sample > config.broadcastPauseComplaintRate) {
    return `complaint rate ${pct(c.complained / sample)} (${c.complained} of ${sample}) passed ${pct(config.broadcastPauseComplaintRate)} (MAILROOM_BROADCAST_PAUSE_COMPLAINT_RATE)`;
  }
  if (c.hard_bounced / sample > config.broadcastPauseBounceRate) {
    return `hard-bounce rate ${pct(c.hard_bounced / sample)} (${c.hard_bounced} of ${sample}) passed ${pct(config.broadcastPauseBounceRate)} (MAILROOM_BROADCAST_PAUSE_BOUNCE_RATE)`;
  }
  return undefined;
}

type Cursor = { created_at: string; id: string };
interface PreparedPage {
  from: Cursor | null;
  last: Cursor | null;
  done: boolean;
  emails: EmailPage;
  step: ExpansionCounts;
}
type ExpansionCounts = {
  created: number;
  skippedUnsubscribed: number;
  skippedTopic: number;
  skippedSuppressed: number;
};
/** The next page, read and prepared while the previous one commits (one job run's state). */
interface Ahead {
  from: string;
  page: Promise<PreparedPage>;
}
const cursorKey = (c: Cursor | null) => (c ? `${c.created_at}/${c.id}` : '');

/** Reads the page after `from`, drops the ineligible and prepares the others' emails. Reads only. */
async function preparePage(
  deps: ExpandDeps,
  b: BroadcastRow,
  msg: BroadcastMessage,
  from: Cursor | null,
): Promise<PreparedPage> {
  const seg = b.segment_id ? await segmentFind(deps.pool, b.team_id, b.segment_id) : undefined;
  const page = seg
    ? await segmentRecipientsAfter(deps.pool, b.team_id, seg, from, deps.config.broadcastPageSize)
    : { rows: [], next: null };
  const ex = await broadcastPageExclusions(deps.pool, b.team_id, b.topic_id, page.rows);
  const step = { created: 0, skippedUnsubscribed: 0, skippedTopic: 0, skippedSuppressed: 0 };
  const emails = await pageOfEmails(deps, b, msg, page.rows, ex, step);
  step.created = emails.ids.length;
  const last = page.rows[page.rows.length - 1];
  return {
    from,
    last: last ? { created_at: last.created_at, id: last.id } : null,
    done: page.next === null,
    emails,
    step,
  };
}

/** A page's commit under way: `locked` once it holds its broadcast's page lock, `done` when it committed (false: the cursor moved). */
interface Commit {
  locked: Promise<void>;
  done: Promise<boolean>;
}

/**
 * Commits a page's emails with the cursor's advance from `from` to the page's end, in one
 * transaction. With `after` (the previous page's commit, still running), the emails are written at
 * once and only the advance waits for it: two pages are written side by side on two connections
 * (PostgreSQL's insert work is most of an expansion, and the machine has more than one core), and
 * each page still commits with its own advance, in order. False when the cursor moved (a second
 * run of the job, a pause, or the previous page not committed).
 *
 * The second page waits for the first INSIDE PostgreSQL (the broadcast's page lock, an advisory
 * transaction lock the first takes before writing), never only in this process: the two inserts
 * can meet on a row both create (the webhook dispatcher's wake-up job, inserted by the trigger on
 * email_events, 0005), and a wait PostgreSQL cannot see made that a hang that lasted forever (the
 * first waiting for the second's row, the second for the first's commit in JavaScript). Seen as a
 * lock cycle, it is a deadlock PostgreSQL breaks within deadlock_timeout: one page rolls back, and
 * the walk reads again from the committed cursor.
 */
function commitPage(deps: ExpandDeps, id: string, from: Cursor | null, p: PreparedPage, after?: Commit): Commit {
  let locked!: () => void;
  const lockedP = new Promise<void>((resolve) => {
    locked = resolve;
  });
  const done = withTx(deps.pool, async (tx) => {
    if (!after) {
      await broadcastPageLock(tx, id);
      locked();
    }
    await deps.accept.commitPage(tx, p.emails);
    if (after) {
      await after.locked; // the first page holds the lock before the second asks for it
      await broadcastPageLock(tx, id);
      locked();
      if (!(await after.done)) throw new CursorMoved();
    }
    if (!(await broadcastAdvance(tx, id, { from, to: p.last, done: p.done, ...p.step }))) throw new CursorMoved();
    return true;
  }).catch((err) => {
    locked(); // nobody waits for a lock this page will never take
    if (err instanceof CursorMoved || (err as { code?: string }).code === DEADLOCK) return false; // read again from the committed cursor
    throw err;
  });
  return { locked: lockedP, done };
}

/**
 * Up to two pages: read, filter, prepare, commit with the cursor (the second page's emails are
 * written while the first commits, if the first leaves `room` in the pacing window). Returns false
 * when the walk is over. While they commit, the next page is read and prepared (`ahead`); it is
 * used only if the next call starts from where these pages end, i.e. their commits went through
 * (reads only: discarding it costs nothing but the work).
 */
async function expandPage(
  deps: ExpandDeps,
  b: BroadcastRow,
  msg: BroadcastMessage,
  state: { ahead?: Ahead },
  room: number,
): Promise<boolean> {
  const from = b.cursor_id && b.cursor_created_at ? { created_at: b.cursor_created_at, id: b.cursor_id } : null;
  const ready = state.ahead?.from === cursorKey(from) ? state.ahead.page : undefined;
  state.ahead = undefined;
  const p = await (ready ?? preparePage(deps, b, msg, from));
  const first = commitPage(deps, b.id, from, p);
  first.done.catch(() => undefined); // awaited below
  const commits = [first.done];
  let last = p;
  if (!p.done && p.last && p.emails.ids.length < room) {
    // The second page, while the pacing window has room: if it cannot be prepared, the first
    // commits alone and the error shows next time.
    const q = await preparePage(deps, b, msg, p.last).catch(() => undefined);
    if (q) {
      commits.push(commitPage(deps, b.id, p.last, q, first).done);
      last = q;
    }
  }
  if (!last.done && last.last) {
    const page = preparePage(deps, b, msg, last.last);
    page.catch(() => undefined); // an error shows when (if) the page is used
    state.ahead = { from: cursorKey(last.last), page };
  }
  const results = await Promise.allSettled(commits);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    state.ahead = undefined;
    throw failed.reason;
  }
  const advanced = results.every((r) => (r as PromiseFulfilledResult<boolean>).value);
  if (!advanced) state.ahead = undefined;
  return advanced && !last.done;
}

/**
 * The page's eligible contacts as emails, through the acceptor's page form (its check step once per
 * page: the sending domain, the guard's pause, the topic). A contact whose address cannot be parsed
 * is skipped with a warning.
 */
async function pageOfEmails(
  deps: ExpandDeps,
  b: BroadcastRow,
  msg: BroadcastMessage,
  rows: RecipientRow[],
  ex: PageExclusions,
  step: ExpansionCounts,
): Promise<EmailPage> {
  const ctx: SendContext = { teamId: b.team_id, apiKeyId: b.api_key_id, keyDomainId: null, source: 'broadcast' };
  const head = {
    from: msg.from,
    replyTo: msg.replyToAddresses,
    headers: msg.headers(),
    topicId: b.topic_id,
    listId: msg.listId,
    broadcastId: b.id,
  };
  return deps.accept.page(ctx, head, (domain) => {
    const copies: PageCopy[] = [];
    const seen = new Set<string>();
    for (const c of rows) {
      const address = c.email.toLowerCase();
      if (c.unsubscribed) step.skippedUnsubscribed++;
      else if (ex.topicOut.has(c.id)) step.skippedTopic++;
      else if (ex.suppressed.has(address)) step.skippedSuppressed++;
      else if (!seen.has(address)) {
        seen.add(address);
        let to;
        try {
          to = parseAddress(c.email);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          deps.log.warn('broadcast: contact address refused, skipped', {
            broadcast_id: b.id,
            contact_id: c.id,
            err: err.message,
          });
          continue;
        }
        copies.push({ to, subject: msg.subjectFor(c), personalization: msg.personalizationOf(c, domain) });
      }
    }
    return copies;
  });
}

class CursorMoved extends Error {}
const DEADLOCK = '40P01'; // PostgreSQL broke a lock cycle between the two page commits (commitPage)

export function broadcastExpandJob(deps: ExpandDeps) {
  return async (job: Job<ExpandPayload>, jc: JobContext): Promise<void | JobOutcome> => {
    const started = Date.now();
    let msg: BroadcastMessage | undefined;
    const pages: { ahead?: Ahead } = {};
    for (;;) {
      if (jc.signal.aborted) throw jc.signal.reason ?? new Error('aborted');
      let b = await broadcastFindById(deps.pool, job.payload.broadcast_id);
      if (!b) return;
      if (b.status === 'scheduled') {
        if (b.scheduled_at && new Date(b.scheduled_at).getTime() > Date.now())
          return { retryAt: new Date(b.scheduled_at) };
        await broadcastQueueDue(deps.pool, b.id);
        continue;
      }
      if (b.status === 'paused') return { retryAt: new Date(Date.now() + PAUSED_LOOK_MS) };
      if (b.status !== 'queued' && b.status !== 'sending') return; // draft, sent, canceled: nothing to do
      const reason = b.recipients > 0 ? await autoPauseReason(deps.pool, deps.config, b.id) : undefined;
      if (reason) {
        // As a pause on request: the broadcast's row, then its jobs, in one transaction (issue 24).
        const id = b.id;
        const held = await withTx(deps.pool, async (tx) =>
          (await broadcastPauseAuto(tx, id, reason)) ? deliverJobsHoldForBroadcast(tx, id) : undefined,
        );
        if (held !== undefined) deps.log.warn('broadcast paused automatically', { broadcast_id: b.id, reason, held });
        continue;
      }
      // Fewer emails created than the window: fewer queued too (no count needed). `room`: how many
      // more may be queued now; a second page is written alongside only while there is room for it.
      const window = deps.config.broadcastQueueWindow;
      const queued = b.recipients >= window ? await broadcastQueuedCount(deps.pool, b.id, window) : b.recipients;
      if (queued >= window) return { retryAt: new Date(Date.now() + PACE_WAIT_MS) };
      const room = window - queued;
      if (Date.now() - started > RUN_BUDGET_MS) return { retryAt: new Date() };
      try {
        msg ??= new BroadcastMessage(b, await propertyFallbacks(deps.pool, b.team_id));
        if (!(await expandPage(deps, b, msg, pages, room))) {
          b = await broadcastFindById(deps.pool, b.id);
          if (b?.status === 'sent') return;
        }
      } catch (err) {
        // A refusal of the way in (domain no longer verified, paused, a bad From): no retry can fix it;
        // the broadcast pauses with the reason shown, and resumes when the user has fixed it.
        if (!(err instanceof AppError)) throw err;
        if (await broadcastPauseAuto(deps.pool, job.payload.broadcast_id, `sending refused: ${err.message}`)) {
          deps.log.warn('broadcast paused: the send path refused it', {
            broadcast_id: job.payload.broadcast_id,
            err: err.message,
          });
        }
        msg = undefined;
      }
    }
  };
}

// Bulk operations on contacts (POST /contacts/bulk, a Mailroom extension, issue 30): an action
// (add to or remove from a segment, set a topic subscription, unsubscribe, resubscribe, delete) on
// a selection of ids or on every contact a search matches. Batches of BATCH contacts, each its own
// short transaction recording its contact.updated / contact.deleted events as the single
// operations do; a request matching more than INLINE_MAX contacts is a contacts.bulk job instead
// (202 with the operation to poll at GET /contacts/bulk/:id).
import { AppError, invalidField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { enqueue } from '../queue/enqueue.js';
import {
  BULK_ACTIONS,
  bulkApply,
  bulkFind,
  bulkInsert,
  bulkProgress,
  type BulkAction,
  type BulkParams,
  type BulkRow,
} from '../store/contact-bulk.js';
import { contactSearchAfter, contactSearchCount, type ContactMatch } from '../store/contact-search.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { CONTACT_BULK_JOB } from '../store/jobs.js';
import { topicsFindMany } from '../store/topics.js';
import { matchOf, SEARCH_LIMITS } from './search.js';
import { segmentOf } from './segments.js';
import { recordMany } from './service.js';

/** Contacts per transaction. */
export const BATCH = 500;
/** Up to this many contacts run in the request; more are a job. */
export const INLINE_MAX = 1_000;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The action and its arguments, checked against the team's segments and topics. */
async function paramsOf(db: Queryable, teamId: string, body: Record<string, unknown>): Promise<BulkParams> {
  const action = body.action as BulkAction;
  if (action === 'add_to_segment' || action === 'remove_from_segment') {
    if (typeof body.segment_id !== 'string' || !isUuid(body.segment_id))
      throw invalidField('segment_id', `is required for ${action}: a segment id.`);
    const s = await segmentOf(db, teamId, body.segment_id);
    if (s.filter) throw invalidField('segment_id', 'must be a segment of fixed members, not one with a filter.');
    return { segment_id: s.id };
  }
  if (action === 'set_topic') {
    if (typeof body.topic_id !== 'string' || !isUuid(body.topic_id))
      throw invalidField('topic_id', 'is required for set_topic: a topic id.');
    const [t] = await topicsFindMany(db, teamId, [body.topic_id.toLowerCase()]);
    if (!t) throw notFound('Topic');
    if (body.subscription !== 'opt_in' && body.subscription !== 'opt_out')
      throw invalidField('subscription', 'must be opt_in or opt_out.');
    return { topic_id: t.id, subscription: body.subscription };
  }
  return {};
}

/** Runs the operation from its saved cursor to the end, one batch per transaction. */
export async function bulkRun(pool: Pool, op: BulkRow, match: ContactMatch, signal?: AbortSignal): Promise<void> {
  let cursor = op.cursor;
  for (;;) {
    if (signal?.aborted) throw signal.reason ?? new Error('aborted');
    const done = await withTx(pool, async (tx) => {
      const { rows, next } = await contactSearchAfter(tx, op.team_id, match, cursor, BATCH);
      const changed = await bulkApply(
        tx,
        op.team_id,
        op.action,
        op.params,
        rows.map((r) => r.id),
      );
      if (changed.length) await recordMany(tx, op.action === 'delete' ? 'contact.deleted' : 'contact.updated', changed);
      const last = rows[rows.length - 1];
      await bulkProgress(tx, op.id, {
        processed: rows.length,
        changed: changed.length,
        cursor: last ? { created_at: last.created_at, id: last.id } : null,
        status: next ? 'running' : 'completed',
      });
      cursor = next;
      return !next;
    });
    if (done) return;
  }
}

export const bulkView = (b: BulkRow) => ({
  object: 'contact_bulk' as const,
  id: b.id,
  action: b.action,
  status: b.status,
  matched: b.matched,
  processed: b.processed,
  changed: b.changed,
  error: b.error,
  created_at: b.created_at,
  finished_at: b.finished_at,
});

/**
 * POST /contacts/bulk {action, contacts: [ids] | match: {search, filter, segment_id}, segment_id,
 * topic_id, subscription}: runs the action now (200) or queues it (202).
 */
export async function contactsBulk(pool: Pool, teamId: string, body: Record<string, unknown>) {
  if (!BULK_ACTIONS.includes(body.action as never))
    throw invalidField('action', `must be one of ${BULK_ACTIONS.join(', ')}.`);
  const action = body.action as BulkAction;
  const params = await paramsOf(pool, teamId, body);
  if ((body.contacts === undefined) === (body.match === undefined))
    throw new AppError(
      'validation_error',
      'Invalid `contacts` field: give either `contacts` (ids) or `match` (every contact a search matches), not both.',
    );
  let match: ContactMatch;
  let selection: Record<string, unknown>;
  if (body.contacts !== undefined) {
    if (!Array.isArray(body.contacts) || body.contacts.length === 0 || body.contacts.length > SEARCH_LIMITS.ids)
      throw invalidField('contacts', `must be an array of 1 to ${SEARCH_LIMITS.ids} contact ids.`);
    const bad = body.contacts.find((x) => typeof x !== 'string' || !isUuid(x));
    if (bad !== undefined) throw invalidField('contacts', `${JSON.stringify(bad).slice(0, 60)} is not a contact id.`);
    match = await matchOf(pool, teamId, { ids: body.contacts });
    selection = { contacts: match.ids };
  } else {
    if (!isObj(body.match)) throw invalidField('match', 'must be an object: {search, filter, segment_id}.');
    const extra = Object.keys(body.match).find((k) => !['search', 'filter', 'segment_id'].includes(k));
    if (extra !== undefined) throw invalidField(`match.${extra.slice(0, 50)}`, 'is not a field of a match.');
    match = await matchOf(pool, teamId, body.match);
    selection = { match: body.match };
  }
  const n = await contactSearchCount(pool, teamId, match, SEARCH_LIMITS.countCap);
  const queued = n.count > INLINE_MAX;
  const op = await withTx(pool, async (tx) => {
    const row = await bulkInsert(tx, teamId, {
      action,
      params,
      selection,
      status: queued ? 'queued' : 'running',
      matched: n.count,
    });
    if (queued) await enqueue(tx, { kind: CONTACT_BULK_JOB, payload: { operation_id: row.id }, maxAttempts: 10 });
    return row;
  });
  if (queued) return { status: 202, body: bulkView(op) };
  await bulkRun(pool, op, match);
  return { status: 200, body: bulkView((await bulkFind(pool, teamId, op.id))!) };
}

/** GET /contacts/bulk/:id */
export async function contactsBulkGet(db: Queryable, teamId: string, id: string) {
  const b = isUuid(id) ? await bulkFind(db, teamId, id.toLowerCase()) : undefined;
  if (!b) throw notFound('Bulk operation');
  return bulkView(b);
}

/** The selection of a stored operation as a match (its segment and filter checked again). */
export async function storedMatch(db: Queryable, op: BulkRow): Promise<ContactMatch> {
  const sel = op.selection;
  if (Array.isArray(sel.contacts)) return { ids: sel.contacts as string[] };
  return matchOf(db, op.team_id, sel.match as Record<string, unknown>);
}

// The delivery job's reads and records (store/webhook-messages.ts): a read of due messages writes
// nothing (the endpoint's job is its only reader) and goes on past the key it is given; an attempt
// is counted when it is recorded; the endpoint's row gets a new version only when its state changes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { uuid } from '../../src/lib/ids.js';
import {
  webhookAttemptsRecord,
  webhookMessagesNextDue,
  webhookMessagesReadDue,
  type AttemptRecord,
} from '../../src/store/webhook-messages.js';
import { webhookFindForDelivery } from '../../src/store/webhooks.js';

let db: TestDatabase;
const teamId = uuid();
const webhookId = uuid();

before(async () => {
  db = await freshDatabase();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [teamId, 'reads']);
  await db.pool.query(
    `INSERT INTO webhooks (id, team_id, endpoint, events, secret_sealed) VALUES ($1, $2, 'http://127.0.0.1:9/hook', '{email.delivered}', 'x')`,
    [webhookId, teamId],
  );
  // Ten due messages (two of them due at the same instant, ordered by their event), one not yet due.
  await db.pool.query(
    `INSERT INTO webhook_messages (id, webhook_id, team_id, event_id, event_seq, type, status, next_attempt_at, created_at)
     SELECT 'msg_' || i, $1::uuid, $2::uuid, gen_random_uuid(), i, 'email.delivered', 'pending',
            now() - interval '1 minute' + least(i, 9) * interval '1 microsecond', now()
     FROM generate_series(1, 10) i
     UNION ALL SELECT 'msg_later', $1::uuid, $2::uuid, gen_random_uuid(), 11, 'email.delivered', 'pending', now() + interval '1 hour', now()`,
    [webhookId, teamId],
  );
});
after(() => db.drop());

const versions = async (table: string, where: string) =>
  (await db.pool.query(`SELECT id::text, xmin::text AS v FROM ${table} WHERE ${where} ORDER BY id`)).rows;

test('a read takes due messages in order past its key, writes nothing, and counts the attempt to come', async () => {
  const before = await versions('webhook_messages', 'true');
  const first = await webhookMessagesReadDue(db.pool, webhookId, 4, null);
  assert.deepEqual(
    first.map((m) => m.id),
    ['msg_1', 'msg_2', 'msg_3', 'msg_4'],
  );
  assert.ok(first.every((m) => m.attempts === 1));
  const next = await webhookMessagesReadDue(db.pool, webhookId, 4, first[3].due_key);
  assert.deepEqual(
    next.map((m) => m.id),
    ['msg_5', 'msg_6', 'msg_7', 'msg_8'],
    'the next read starts past the last key',
  );
  const rest = await webhookMessagesReadDue(db.pool, webhookId, 10, next[3].due_key);
  assert.deepEqual(
    rest.map((m) => m.id),
    ['msg_9', 'msg_10'],
    'messages due at the same instant are told apart by their event; one not due yet is not read',
  );
  assert.equal(rest[0].due_key.at, rest[1].due_key.at, 'the key keeps PostgreSQL’s microseconds');
  assert.deepEqual(await versions('webhook_messages', 'true'), before, 'no message row was written or locked');
  const locks = await db.pool.query("SELECT 1 FROM pg_locks WHERE locktype = 'tuple'");
  assert.equal(locks.rowCount, 0);
});

let attemptNo = 0;
const record = (id: string, status: AttemptRecord['status'], sentAt: string): AttemptRecord => ({
  message_id: id,
  attempt_id: `atmpt_${++attemptNo}`,
  status,
  next_attempt_at: status === 'attempting' ? new Date(Date.now() + 5_000).toISOString() : null,
  sent_at: sentAt,
  endpoint: 'http://127.0.0.1:9/hook',
  request_headers: { 'content-type': 'application/json' },
  request_body: '{}',
  response_status: status === 'success' ? 200 : 500,
  response_body: '',
  duration_ms: 3,
  error_type: null,
  error_message: null,
});

test('a recorded attempt is counted; the endpoint row changes only when its failure state does', async () => {
  const o = { anySuccess: true, firstFailureAt: null, disable: null, disableAfterMs: 5 * 86_400_000 };
  const endpoint = () => versions('webhooks', `id = '${webhookId}'`);
  const v0 = await endpoint();
  const now = new Date().toISOString();
  assert.deepEqual(await webhookAttemptsRecord(db.pool, webhookId, teamId, [record('msg_1', 'success', now)], o), {
    status: 'enabled',
    disabled_now: false,
  });
  assert.deepEqual(await endpoint(), v0, 'an endpoint that keeps answering: its row is not rewritten');
  // A failure starts the failing spell: the row changes, once.
  const failed = { ...o, anySuccess: false, firstFailureAt: now };
  await webhookAttemptsRecord(db.pool, webhookId, teamId, [record('msg_2', 'attempting', now)], failed);
  const v1 = await endpoint();
  assert.notDeepEqual(v1, v0);
  await webhookAttemptsRecord(db.pool, webhookId, teamId, [record('msg_2', 'attempting', now)], failed);
  assert.deepEqual(await endpoint(), v1, 'still failing: nothing new to write');
  const { rows } = await db.pool.query(
    "SELECT id, status, attempts FROM webhook_messages WHERE id IN ('msg_1', 'msg_2') ORDER BY id",
  );
  assert.deepEqual(rows, [
    { id: 'msg_1', status: 'success', attempts: 1 },
    { id: 'msg_2', status: 'attempting', attempts: 2 },
  ]);
  const [again] = await webhookMessagesReadDue(db.pool, webhookId, 1, null);
  assert.equal(again.id, 'msg_3', 'a message retried later is not due now; a success is not due');
  // A success ends the spell; failing for longer than the limit disables the endpoint.
  await webhookAttemptsRecord(db.pool, webhookId, teamId, [record('msg_3', 'success', now)], o);
  assert.equal(
    (await db.pool.query('SELECT failing_since FROM webhooks WHERE id = $1', [webhookId])).rows[0].failing_since,
    null,
  );
  const old = new Date(Date.now() - 6 * 86_400_000).toISOString();
  assert.deepEqual(
    await webhookAttemptsRecord(db.pool, webhookId, teamId, [record('msg_4', 'attempting', now)], {
      ...o,
      anySuccess: false,
      firstFailureAt: old,
    }),
    { status: 'disabled', disabled_now: true },
  );
  const w = (await db.pool.query('SELECT status, disabled_reason FROM webhooks WHERE id = $1', [webhookId])).rows[0];
  assert.deepEqual(w, { status: 'disabled', disabled_reason: 'failing' });
});

test('an endpoint run’s statements are planned once per session, not at every call', async () => {
  // PostgreSQL keeps a prepared statement's generic plan only when it costs no more than the custom
  // plans of its first five calls; the due read with `LIMIT $n` and its start key as parameters lost
  // that comparison and was planned at every call (issue 27). The costs differ only on a table of
  // some size, with statistics: an endpoint with 20,000 due messages among 60,000 delivered ones.
  const busy = uuid();
  await db.pool.query(
    `INSERT INTO webhooks (id, team_id, endpoint, events, secret_sealed) VALUES ($1, $2, 'http://127.0.0.1:9/busy', '{email.delivered}', 'x')`,
    [busy, teamId],
  );
  await db.pool.query(
    `INSERT INTO webhook_messages (id, webhook_id, team_id, event_id, event_seq, type, status, next_attempt_at, created_at)
     SELECT 'msg_busy_' || i, $1::uuid, $2::uuid, gen_random_uuid(), 100 + i, 'email.delivered',
            CASE WHEN i % 4 = 0 THEN 'pending' ELSE 'success' END,
            CASE WHEN i % 4 = 0 THEN now() - interval '1 minute' END, now()
     FROM generate_series(1, 80000) i`,
    [busy, teamId],
  );
  await db.pool.query('ANALYZE webhook_messages');
  const c = await db.pool.connect(); // one connection, so its statements
  try {
    for (let i = 0; i < 12; i++) {
      const [m] = await webhookMessagesReadDue(c, busy, 64, null);
      await webhookMessagesReadDue(c, busy, 64, m.due_key);
      await webhookMessagesNextDue(c, busy);
      await webhookFindForDelivery(c, busy);
    }
    const { rows } = await c.query(
      `SELECT name, generic_plans, custom_plans FROM pg_prepared_statements
       WHERE name IN ('mr_webhook_find_for_delivery', 'mr_webhook_messages_due_64', 'mr_webhook_messages_next_due') ORDER BY name`,
    );
    assert.deepEqual(
      rows.map((r) => r.name),
      ['mr_webhook_find_for_delivery', 'mr_webhook_messages_due_64', 'mr_webhook_messages_next_due'],
    );
    for (const r of rows) {
      assert.ok(Number(r.custom_plans) <= 5, `${r.name}: ${r.custom_plans} custom plans`);
      assert.ok(Number(r.generic_plans) >= 7, `${r.name}: ${r.generic_plans} calls on the generic plan`);
    }
  } finally {
    c.release();
  }
});

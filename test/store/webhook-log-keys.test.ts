// Migration 0083 (issue 27): webhook_messages and webhook_attempts no longer check their endpoint
// and message with foreign keys on every row; what the keys did is done by triggers on delete and
// by the writers. An endpoint's delete (or its team's) takes its messages and their attempts with
// it, retention's delete of messages their attempts; a recorded attempt of a message deleted
// meanwhile is not written; and a fan-out pass holds its endpoints so that a delete waits for it and
// then takes the pass's messages too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { withTx } from '../../src/store/db.js';
import {
  webhookAttemptsRecord,
  webhookMessagesDeleteOlderThan,
  type AttemptRecord,
} from '../../src/store/webhook-messages.js';
import { webhookMessagesInsertDispatched } from '../../src/store/webhook-outbox.js';
import { webhookDelete, webhooksEnabledForTeams } from '../../src/store/webhooks.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db.drop();
});

async function endpoint(name: string): Promise<{ team: string; webhook: string }> {
  const team = randomUUID();
  const webhook = randomUUID();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [team, name]);
  await db.pool.query(
    `INSERT INTO webhooks (id, team_id, endpoint, events, secret_sealed) VALUES ($1, $2, 'http://127.0.0.1:9/hook', '{email.delivered}', 'x')`,
    [webhook, team],
  );
  return { team, webhook };
}

let seq = 0;
/** `n` messages of the endpoint, each with one attempt, `days` old. */
async function messages(e: { team: string; webhook: string }, n: number, days = 0): Promise<string[]> {
  const ids = Array.from({ length: n }, () => `msg_${randomUUID().replace(/-/g, '')}`);
  await db.pool.query(
    `INSERT INTO webhook_messages (id, webhook_id, team_id, event_id, event_seq, type, status, next_attempt_at, created_at)
     SELECT id, $2, $3, gen_random_uuid(), $4 + n, 'email.delivered', 'success', NULL, now() - $5::int * interval '1 day'
     FROM unnest($1::text[]) WITH ORDINALITY AS x (id, n)`,
    [ids, e.webhook, e.team, (seq += n), days],
  );
  await db.pool.query(
    `INSERT INTO webhook_attempts (id, message_id, team_id, endpoint, request_headers, request_body, duration_ms, created_at)
     SELECT 'atmpt_' || id, id, $2, 'http://127.0.0.1:9/hook', '{}', '{}', 1, now() FROM unnest($1::text[]) AS id`,
    [ids, e.team],
  );
  return ids;
}

const count = async (table: string, column: string, ids: string[]) =>
  Number((await db.pool.query(`SELECT count(*) FROM ${table} WHERE ${column} = ANY($1)`, [ids])).rows[0].count);

test('no foreign key is checked on the webhook log; deletes cascade by trigger', async () => {
  const keys = await db.pool.query(
    "SELECT conname FROM pg_constraint WHERE contype = 'f' AND conrelid IN ('webhook_messages'::regclass, 'webhook_attempts'::regclass)",
  );
  assert.deepEqual(keys.rows, []);
  const a = await endpoint('a');
  const b = await endpoint('b');
  const am = await messages(a, 3);
  const bm = await messages(b, 2);
  assert.equal(await webhookDelete(db.pool, a.team, a.webhook), true);
  assert.equal(await count('webhook_messages', 'id', am), 0, "the endpoint's messages go with it");
  assert.equal(await count('webhook_attempts', 'message_id', am), 0, 'and their attempts');
  assert.equal(await count('webhook_messages', 'id', bm), 2, "another endpoint's stay");
  assert.equal(await count('webhook_attempts', 'message_id', bm), 2);
  // A team's delete reaches its endpoints (their key to teams is kept), and so their log.
  await db.pool.query('DELETE FROM teams WHERE id = $1', [b.team]);
  assert.equal(await count('webhook_messages', 'id', bm), 0);
  assert.equal(await count('webhook_attempts', 'message_id', bm), 0);
});

test("retention's delete of old messages takes their attempts", async () => {
  const e = await endpoint('retention');
  const old = await messages(e, 3, 40);
  const recent = await messages(e, 2, 1);
  assert.ok((await webhookMessagesDeleteOlderThan(db.pool, 30)) >= 3);
  assert.equal(await count('webhook_attempts', 'message_id', old), 0);
  assert.equal(await count('webhook_attempts', 'message_id', recent), 2);
});

test('an attempt of a message deleted meanwhile is not recorded', async () => {
  const e = await endpoint('record');
  const [kept, gone] = await messages(e, 2);
  await db.pool.query('DELETE FROM webhook_messages WHERE id = $1', [gone]);
  const attempt = (id: string): AttemptRecord => ({
    message_id: id,
    attempt_id: `atmpt_again_${id}`,
    status: 'success',
    next_attempt_at: null,
    sent_at: new Date().toISOString(),
    endpoint: 'http://127.0.0.1:9/hook',
    request_headers: {},
    request_body: '{}',
    response_status: 200,
    response_body: 'ok',
    duration_ms: 1,
    error_type: null,
    error_message: null,
  });
  const state = await webhookAttemptsRecord(db.pool, e.webhook, e.team, [attempt(kept), attempt(gone)], {
    anySuccess: true,
    firstFailureAt: null,
    disable: null,
    disableAfterMs: 86_400_000,
  });
  assert.deepEqual(state, { status: 'enabled', disabled_now: false });
  assert.equal(await count('webhook_attempts', 'message_id', [kept]), 2);
  assert.equal(await count('webhook_attempts', 'message_id', [gone]), 0);
});

test("a fan-out pass holds its endpoints: a delete waits for it, then takes the pass's messages", async () => {
  const e = await endpoint('pass');
  const other = await db.pool.connect();
  try {
    let deleted: Promise<boolean> | undefined;
    await withTx(db.pool, async (tx) => {
      const [w] = await webhooksEnabledForTeams(tx, [e.team]);
      assert.equal(w.id, e.webhook);
      // The delete cannot go through while the pass holds the endpoint.
      await other.query('BEGIN');
      await other.query("SET LOCAL lock_timeout = '200ms'");
      await assert.rejects(
        other.query('DELETE FROM webhooks WHERE id = $1', [e.webhook]),
        (err: { code?: string }) => err.code === '55P03',
      );
      await other.query('ROLLBACK');
      deleted = webhookDelete(other, e.team, e.webhook); // waits for the pass's commit
      const cursor = (await tx.query('SELECT last_txid::text AS txid, last_seq::text AS seq FROM webhook_cursors'))
        .rows[0];
      await webhookMessagesInsertDispatched(
        tx,
        [
          {
            id: 'msg_in_pass',
            webhook_id: e.webhook,
            team_id: e.team,
            event_id: randomUUID(),
            event_seq: '1',
            type: 'email.delivered',
            created_at: new Date(),
          },
        ],
        cursor,
      );
    });
    assert.equal(await deleted, true);
    assert.equal(
      await count('webhook_messages', 'id', ['msg_in_pass']),
      0,
      "the pass's message went with its endpoint",
    );
  } finally {
    other.release();
  }
});

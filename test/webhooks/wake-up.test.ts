// The dispatcher's wake-up (trigger webhooks_wake_dispatcher, 0005 and 0069): an event statement
// that finds the dispatcher holding its key neither waits nor writes, and no event is ever left
// behind by the dispatcher's own protocol (key release, horizon wait, last look). The sweep, which
// would mask a missed wake-up, does not run here: only the dispatcher job does.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { makeEvent } from '../../src/events/email-events.js';
import { uuid } from '../../src/lib/ids.js';
import { createLogger } from '../../src/lib/log.js';
import { sleep } from '../../src/lib/time.js';
import { Worker, type Job } from '../../src/queue/worker.js';
import { emailEventsInsert } from '../../src/store/emails.js';
import { jobsClaimDue } from '../../src/store/jobs.js';
import { dispatchAll, webhookDispatchJob } from '../../src/webhooks/dispatch.job.js';
import type { Queryable } from '../../src/store/db.js';

describe('webhook dispatcher wake-ups', () => {
  let db: TestDatabase;
  const teamId = uuid();
  const email = {
    id: uuid(),
    team_id: teamId,
    created_at: new Date(),
    from_header: 'Acme <hello@example.com>',
    to_addrs: ['alice@dest.test'],
    subject: 'Wake-up',
    message_id: '<wake@example.com>',
    tags: [],
    headers: null,
  };
  const insertEvent = (q: Queryable, n = 1) =>
    emailEventsInsert(
      q,
      Array.from({ length: n }, () => makeEvent(email, 'email.delivered', { recipient: 'alice@dest.test' })),
    );
  const count = async (sql: string) => Number((await db.pool.query(sql)).rows[0].n);
  const messages = () => count('SELECT count(*) AS n FROM webhook_messages');
  const events = () => count("SELECT count(*) AS n FROM email_events WHERE type = 'email.delivered'");

  /** Every earlier event dispatched, then no dispatcher job and no message: each test counts from here. */
  const reset = async () => {
    await dispatchAll(db.pool);
    await db.pool.query("DELETE FROM jobs WHERE kind = 'webhooks.dispatch'; DELETE FROM webhook_messages");
  };

  before(async () => {
    db = await freshDatabase();
    await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [teamId, 'wake']);
    await db.pool.query(
      `INSERT INTO emails (id, team_id, message_id, from_header, to_addrs, subject, last_event) VALUES ($1, $2, $3, $4, $5, $6, 'sent')`,
      [email.id, teamId, email.message_id, email.from_header, email.to_addrs, email.subject],
    );
    await db.pool.query(
      `INSERT INTO webhooks (id, team_id, endpoint, events, secret_sealed, created_at) VALUES ($1, $2, 'http://127.0.0.1:9/hook', '{email.delivered}', 'x', now() - interval '1 minute')`,
      [uuid(), teamId],
    );
  });
  after(() => db.drop());

  test('an event statement does not wait for a transaction holding the dispatcher job row', async () => {
    await reset();
    await insertEvent(db.pool); // creates the pending wake job
    assert.equal(await count("SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.dispatch' AND key = 'wake'"), 1);
    const holder = await db.pool.connect();
    const writer = await db.pool.connect();
    try {
      // As a claim, a lease renewal or a reschedule does, uncommitted.
      await holder.query('BEGIN');
      await holder.query("UPDATE jobs SET run_at = run_at WHERE kind = 'webhooks.dispatch'");
      // Before 0069 the trigger's INSERT ... ON CONFLICT waited here for the holder's commit.
      await writer.query("SET statement_timeout = '2s'");
      const t0 = performance.now();
      await insertEvent(writer);
      assert.ok(performance.now() - t0 < 1_500, 'the event insert did not wait');
      await holder.query('COMMIT');
    } finally {
      await writer.query('RESET statement_timeout').catch(() => undefined);
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
      writer.release();
    }
    assert.equal(await count("SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.dispatch'"), 1, 'no second job');
  });

  test('an event committed after the dispatcher released its key is still dispatched (the horizon wait)', async () => {
    await reset();
    const handler = webhookDispatchJob({ pool: db.pool });
    const workerId = 'test-worker';
    const ctx = { workerId, log: createLogger('silent'), signal: new AbortController().signal };
    const runOnce = async () => {
      const [row] = await jobsClaimDue(db.pool, workerId, { kinds: ['webhooks.dispatch'] }, 1, 60_000);
      assert.ok(row, 'a dispatcher job is due');
      const job = { id: row.id, kind: row.kind, key: row.key, payload: row.payload } as unknown as Job<{
        horizon?: string;
      }>;
      const outcome = await handler(job, ctx);
      // As the queue records it: rescheduled (lease dropped) or done (deleted).
      if (outcome && 'retryAt' in outcome)
        await db.pool.query('UPDATE jobs SET run_at = now(), locked_by = NULL, locked_until = NULL WHERE id = $1', [
          row.id,
        ]);
      else await db.pool.query('DELETE FROM jobs WHERE id = $1', [row.id]);
      return outcome;
    };
    const before = await events();
    await insertEvent(db.pool); // wakes the dispatcher
    // A transaction whose event statement finds the key held, committed only after the release.
    const late = await db.pool.connect();
    try {
      await late.query('BEGIN');
      await insertEvent(late);
      assert.equal(await count("SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.dispatch'"), 1);
      assert.ok(await runOnce(), 'the first pass found events and stays scheduled');
      assert.ok(await runOnce(), 'an empty pass releases the key and waits');
      assert.equal(
        await count("SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.dispatch' AND key = 'wake'"),
        0,
        'the key is released',
      );
      for (let i = 0; i < 3; i++) assert.ok(await runOnce(), 'it waits while the late transaction runs');
      await late.query('COMMIT');
    } finally {
      await late.query('ROLLBACK').catch(() => undefined);
      late.release();
    }
    const pending = () => count("SELECT count(*) AS n FROM jobs WHERE kind = 'webhooks.dispatch'");
    for (let i = 0; i < 5 && (await pending()) > 0; i++) await runOnce();
    assert.equal(await pending(), 0, 'the dispatcher ended');
    assert.equal(await messages(), (await events()) - before, 'every event has its message');
  });

  test('events written by many small transactions while the dispatcher runs are all dispatched, without the sweep', async () => {
    await reset();
    const before = await events();
    const worker = new Worker({
      pool: db.pool,
      log: createLogger('silent'),
      concurrency: 4,
      maxIdleMs: 60_000, // no periodic re-claim to hide a lost wake-up
      handlers: { 'webhooks.dispatch': webhookDispatchJob({ pool: db.pool }) },
    });
    await worker.start();
    try {
      // Bursts with quiet gaps, so that the dispatcher ends and is woken again many times, and
      // transactions that stay open across its release, horizon and last look.
      const until = Date.now() + 3_000;
      const writers = Array.from({ length: 6 }, async (_, w) => {
        for (let i = 0; Date.now() < until && i < 500; i++) {
          const c = await db.pool.connect();
          try {
            await c.query('BEGIN');
            await insertEvent(c, 1 + (i % 3));
            await sleep((i * 7 + w * 13) % 40);
            await c.query('COMMIT');
          } finally {
            c.release();
          }
          if (i % 10 === 9) await sleep(150 + w * 20); // the dispatcher finds nothing and ends
        }
      });
      await Promise.all(writers);
      const total = (await events()) - before;
      assert.ok(total > 50, `enough events written (${total})`);
      const deadline = Date.now() + 4_000;
      while (Date.now() < deadline && (await messages()) < total) await sleep(50);
      assert.equal(await messages(), total, 'every event reached its endpoint without the sweep');
    } finally {
      await worker.stop(5_000);
    }
  });
});

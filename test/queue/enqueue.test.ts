import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { createLogger } from '../../src/lib/log.js';
import { withTx } from '../../src/store/db.js';
import { enqueue, enqueueMany, DEFAULT_MAX_ATTEMPTS, registerJobKinds } from '../../src/queue/enqueue.js';
import { Worker, type Handler } from '../../src/queue/worker.js';

const log = createLogger('silent');
// This file's job kinds, not production's: declared, since a worker refuses a kind not registered.
const K = registerJobKinds({
  'rb.job': 'enqueued in a transaction that rolls back',
  'lat.job': 'measures the wake-up latency after a commit',
  'rc.job': 'runs after the listener reconnects',
  'dd.job': 'deduplicated by key',
  'other.job': 'another kind with the same key',
  'sh1.job': 'woken through the shared listener (first worker)',
  'sh2.job': 'woken through the shared listener (second worker)',
});
let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db.drop();
});

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function jobCount(kind: string): Promise<number> {
  const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM jobs WHERE kind = $1', [kind]);
  return rows[0].n;
}

test('a job enqueued in a transaction that rolls back never runs', { timeout: 10_000 }, async () => {
  const ran: unknown[] = [];
  // maxIdleMs short so that a stray row would be found quickly by the fallback timer too.
  const worker = new Worker({
    pool: db.pool,
    log,
    handlers: {
      'rb.job': async (j) => {
        ran.push(j.payload);
      },
    },
    maxIdleMs: 50,
  });
  await worker.start();
  try {
    await assert.rejects(
      withTx(db.pool, async (tx) => {
        await enqueue(tx, { kind: K['rb.job'], payload: { n: 1 } });
        throw new Error('the fact failed');
      }),
      /the fact failed/,
    );
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(ran, []);
    assert.equal(await jobCount('rb.job'), 0);
    await withTx(db.pool, (tx) => enqueue(tx, { kind: K['rb.job'], payload: { n: 2 } }));
    await waitFor('the committed job', () => ran.length === 1);
    assert.deepEqual(ran, [{ n: 2 }]);
  } finally {
    await worker.stop();
  }
});

test('a committed job runs within milliseconds of the commit, woken by NOTIFY not by a timer', {
  timeout: 15_000,
}, async (t) => {
  let ranAt = 0;
  let runs = 0;
  const handlers: Record<string, Handler> = {
    'lat.job': async () => {
      ranAt = performance.now();
      runs++;
    },
  };
  // maxIdleMs of 60 s: only the notification can wake this worker in time.
  const worker = new Worker({ pool: db.pool, log, handlers, maxIdleMs: 60_000 });
  await worker.start();
  try {
    const latencies: number[] = [];
    for (let i = 0; i < 20; i++) {
      const before = runs;
      let committedAt = 0;
      await withTx(db.pool, async (tx) => {
        await enqueue(tx, { kind: K['lat.job'], payload: { i } });
        // Held open a moment: the job must not run before the commit.
        await new Promise((r) => setTimeout(r, 20));
        assert.equal(runs, before);
      });
      committedAt = performance.now();
      await waitFor('the job', () => runs === before + 1, 2_000);
      latencies.push(ranAt - committedAt);
    }
    latencies.sort((a, b) => a - b);
    const p50 = latencies[10];
    const max = latencies[19];
    t.diagnostic(`NOTIFY wake-up latency commit->handler: p50 ${p50.toFixed(1)} ms, max ${max.toFixed(1)} ms`);
    assert.ok(max < 500, `max latency ${max} ms`);
  } finally {
    await worker.stop();
  }
});

test('the worker keeps being woken after its LISTEN connection is killed', { timeout: 15_000 }, async () => {
  let runs = 0;
  const worker = new Worker({
    pool: db.pool,
    log,
    handlers: {
      'rc.job': async () => {
        runs++;
      },
    },
    maxIdleMs: 60_000,
  });
  await worker.start();
  try {
    const listenerPids = async () =>
      (
        await db.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'mailroom-jobs-listener'`,
        )
      ).rows.map((r) => r.pid);
    const [old] = await listenerPids();
    assert.ok(old);
    await db.pool.query('SELECT pg_terminate_backend($1)', [old]);
    await waitFor('a new listener connection', async () => {
      const p = await listenerPids();
      return p.length === 1 && p[0] !== old;
    });
    const t0 = performance.now();
    await enqueue(db.pool, { kind: K['rc.job'], payload: {} });
    await waitFor('the job', () => runs === 1, 2_000);
    assert.ok(performance.now() - t0 < 500);
  } finally {
    await worker.stop();
  }
});

test('the workers of a process share one LISTEN connection, which closes with the last of them', {
  timeout: 15_000,
}, async () => {
  const listeners = async () =>
    (
      await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND application_name = 'mailroom-jobs-listener'`,
      )
    ).rows[0].n;
  const ran: string[] = [];
  const worker = (kind: string) =>
    new Worker({
      pool: db.pool,
      log,
      maxIdleMs: 60_000, // woken by the notification only, within the wait below
      handlers: {
        [kind]: async () => {
          ran.push(kind);
        },
      },
    });
  const one = worker(K['sh1.job']);
  const two = worker(K['sh2.job']);
  await one.start();
  await two.start();
  try {
    assert.equal(await listeners(), 1);
    await enqueue(db.pool, { kind: K['sh1.job'], payload: {} });
    await enqueue(db.pool, { kind: K['sh2.job'], payload: {} });
    await waitFor('both jobs', () => ran.length === 2, 2_000);
    await one.stop();
    assert.equal(await listeners(), 1, 'still open for the other worker');
    await enqueue(db.pool, { kind: K['sh2.job'], payload: {} });
    await waitFor('the second worker woken again', () => ran.length === 3, 2_000);
  } finally {
    await one.stop();
    await two.stop();
  }
  await waitFor('the listener closed', async () => (await listeners()) === 0, 5_000);
  // and a worker started afterwards opens it again
  const three = worker(K['sh1.job']);
  await three.start();
  try {
    assert.equal(await listeners(), 1);
  } finally {
    await three.stop();
  }
});

test('enqueueMany inserts in one statement and a key dedupes pending jobs of the same kind', async () => {
  const ids = await enqueueMany(db.pool, [
    { kind: K['dd.job'], payload: { a: 1 }, key: 'domain-1' },
    { kind: K['dd.job'], payload: { a: 2 }, key: 'domain-1' },
    { kind: K['dd.job'], payload: [1, 'two'], key: 'domain-2', runAt: new Date(Date.now() + 60_000) },
    { kind: K['other.job'], payload: {}, key: 'domain-1', region: 'eu', maxAttempts: null },
  ]);
  assert.equal(ids.length, 3);
  assert.equal(await enqueue(db.pool, { kind: K['dd.job'], payload: {}, key: 'domain-1' }), undefined);
  const { rows } = await db.pool.query(
    'SELECT kind, key, payload, region, max_attempts FROM jobs WHERE id = ANY($1::bigint[]) ORDER BY id',
    [ids],
  );
  assert.deepEqual(rows, [
    { kind: 'dd.job', key: 'domain-1', payload: { a: 1 }, region: null, max_attempts: DEFAULT_MAX_ATTEMPTS },
    { kind: 'dd.job', key: 'domain-2', payload: [1, 'two'], region: null, max_attempts: DEFAULT_MAX_ATTEMPTS },
    { kind: 'other.job', key: 'domain-1', payload: {}, region: 'eu', max_attempts: null },
  ]);
  // Once the keyed job is no longer pending (failed here), the key is free again.
  await db.pool.query(`UPDATE jobs SET state = 'failed' WHERE id = $1`, [ids[0]]);
  assert.ok(await enqueue(db.pool, { kind: K['dd.job'], payload: {}, key: 'domain-1' }));
});

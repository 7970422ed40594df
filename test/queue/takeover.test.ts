import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { createLogger } from '../../src/lib/log.js';
import { siblingModule } from '../../src/lib/worker-task.js';
import { enqueueMany, registerJobKinds } from '../../src/queue/enqueue.js';
import { Worker, type Job } from '../../src/queue/worker.js';

const log = createLogger('silent');
// This file's job kind, not production's: declared here and in the doomed worker's process.
const K = registerJobKinds({ 'crash.job': 'held by a worker that is killed' });
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

// The sources as this file runs them: .ts through tsx, or npm test's compiled .js (test/build.mjs).
const src = (f: string) => siblingModule(import.meta.url, `../../src/${f}`).href;
const loader = import.meta.url.endsWith('.ts') ? ['--import', 'tsx'] : [];

// A worker in its own process whose handler never returns: it holds its leases (renewing them)
// until it is killed with SIGKILL, so nothing gets the chance to give them back.
const DOOMED_WORKER = `
  const { createPool } = await import(${JSON.stringify(src('store/db'))});
  const { createLogger } = await import(${JSON.stringify(src('lib/log'))});
  const { Worker } = await import(${JSON.stringify(src('queue/worker'))});
  const { registerJobKinds } = await import(${JSON.stringify(src('store/jobs'))});
  registerJobKinds({ 'crash.job': 'held by a worker that is killed' });
  const worker = new Worker({
    pool: createPool(process.argv[1]), log: createLogger('silent'), id: 'doomed', leaseMs: 500,
    handlers: { 'crash.job': () => new Promise(() => undefined) },
  });
  await worker.start();
`;

test('the jobs of a worker killed with SIGKILL are run by another worker once their leases expire', {
  timeout: 30_000,
}, async () => {
  const ids = await enqueueMany(
    db.pool,
    Array.from({ length: 5 }, (_, n) => ({ kind: K['crash.job'], payload: { n } })),
  );
  const rescued: { job: Job; at: number }[] = [];
  const rescuer = new Worker({
    pool: db.pool,
    log,
    id: 'rescuer',
    leaseMs: 500,
    handlers: {
      'crash.job': async (job) => {
        rescued.push({ job, at: Date.now() });
      },
    },
  });
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [...loader, '--input-type=module', '-e', DOOMED_WORKER, db.url], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const leasedTo = async (who: string) =>
      (await db.pool.query('SELECT 1 FROM jobs WHERE locked_by = $1 AND locked_until > now()', [who])).rowCount;
    await waitFor('the doomed worker to lease all five jobs', async () => (await leasedTo('doomed')) === 5, 15_000);
    await rescuer.start();
    // Two lease lengths: the live worker's renewals keep the rescuer off its jobs.
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal(rescued.length, 0);
    assert.equal(await leasedTo('doomed'), 5);

    child.kill('SIGKILL');
    const killedAt = Date.now();
    await waitFor('the rescuer to run all five', () => rescued.length === 5, 5_000);
    const took = Math.max(...rescued.map((r) => r.at)) - killedAt;
    // Lease (500 ms) plus at most one idle wake-up (maxIdleMs defaults to the lease, 500 ms).
    assert.ok(took < 1_500, `took over after ${took} ms`);
    assert.deepEqual(rescued.map((r) => r.job.id).sort(), [...ids].sort());
    assert.ok(
      rescued.every((r) => r.job.attempt === 2),
      'the killed run counts as an attempt',
    );
    await waitFor(
      'the jobs to be deleted',
      async () => (await db.pool.query(`SELECT 1 FROM jobs WHERE kind = 'crash.job'`)).rowCount === 0,
    );
  } finally {
    child?.kill('SIGKILL');
    await rescuer.stop(1_000);
  }
});

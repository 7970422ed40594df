// Periodic upkeep runs once per period across the cluster (issue 26): two `mailroom start` worker
// processes on one database share one recurring row per task, each slot runs in one of them, and
// when one is killed the other takes its turns; and schedulers starting together never duplicate a row.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mailroomEntry } from '../helpers/cli.js';
import { ROOT } from '../helpers/root.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { sleep } from '../../src/lib/time.js';
import { createPool } from '../../src/store/db.js';
import { MAINTENANCE_KINDS, scheduleMaintenance } from '../../src/maintenance/worker.js';
import { DOMAIN_RECHECK_JOB, METRICS_ROLLUP_JOB } from '../../src/store/jobs.js';

interface Run {
  kind: string;
  slot: string;
  worker: string;
  at: number; // when this test read the line
}

interface Proc {
  child: ChildProcess;
  name: string;
  runs: Run[];
  out: string; // the first lines, for a failure's message
  exited: Promise<void>;
}

function startWorker(name: string, db: TestDatabase, dirs: string[]): Proc {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `mailroom-recurring-${name}-`));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      MAILROOM_DATABASE_URL: db.url,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_ROLES: 'worker',
      MAILROOM_LOG_LEVEL: 'debug', // each maintenance run is a debug line naming its slot
      MAILROOM_MX_HOST: 'mx.mailroom.test',
      MAILROOM_SECRET_KEY: 'recurring-test-secret',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p: Proc = { child, name, runs: [], out: '', exited: new Promise((r) => child.once('exit', () => r())) };
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (p.out.length < 20_000) p.out += line + '\n';
      if (!line.includes('"maintenance task ran"')) continue;
      const rec = JSON.parse(line) as { kind: string; slot: string; worker: string };
      p.runs.push({ kind: rec.kind, slot: rec.slot, worker: rec.worker, at: Date.now() });
    }
  });
  child.stderr!.on('data', (d) => {
    if (p.out.length < 20_000) p.out += d;
  });
  return p;
}

async function until(what: string, cond: () => boolean | Promise<boolean>, ms: number, out = () => '') {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await sleep(100);
  }
  assert.fail(`timed out waiting for ${what}\n${out()}`);
}

const rowsPerKind = async (db: TestDatabase) =>
  Object.fromEntries(
    (
      await db.pool.query<{ kind: string; n: number }>(
        'SELECT kind, count(*)::int AS n FROM jobs WHERE kind = ANY($1::text[]) GROUP BY kind',
        [MAINTENANCE_KINDS],
      )
    ).rows.map((r) => [r.kind, r.n]),
  );
const oneEach = Object.fromEntries(MAINTENANCE_KINDS.map((k) => [k, 1]));

describe('periodic upkeep across worker processes', () => {
  let db: TestDatabase;
  const dirs: string[] = [];
  const procs: Proc[] = [];
  before(async () => {
    db = await freshDatabase();
  });
  after(async () => {
    for (const p of procs) {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill('SIGTERM');
        await p.exited;
      }
    }
    await db.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  test('two worker processes share one row per task, each slot runs once, and the survivor of a kill takes every turn', async () => {
    const t = Date.now();
    const a = startWorker('a', db, dirs);
    const b = startWorker('b', db, dirs);
    procs.push(a, b);
    const started = (p: Proc) => /"msg":"worker started","component":"maintenance"/.test(p.out);
    await until(
      'both processes to start their maintenance worker',
      () => started(a) && started(b),
      60_000,
      () => a.out + b.out,
    );
    process.stdout.write(`# both processes started in ${Date.now() - t} ms\n`);
    assert.deepEqual(await rowsPerKind(db), oneEach, 'one recurring row per task, not one per process');

    // The metrics rollup every 300 ms instead of every minute: the row's interval is what the worker
    // reschedules by, so the test shortens it in the database rather than through a setting.
    const PERIOD = 300;
    await db.pool.query('UPDATE jobs SET every_ms = $2, run_at = now() WHERE kind = $1', [METRICS_ROLLUP_JOB, PERIOD]);
    // No notification for an UPDATE made here: the workers see the row at their next look (<= 5 s).
    const rollups = () => [...a.runs, ...b.runs].filter((r) => r.kind === METRICS_ROLLUP_JOB);
    await until('the first rollup at the short period', () => rollups().length > 0, 15_000);
    const t0 = Math.min(...rollups().map((r) => r.at));
    await sleep(6_000);
    const both = rollups().filter((r) => r.at > t0);
    const slots = rollups().map((r) => r.slot);
    assert.equal(new Set(slots).size, slots.length, `no slot ran twice: ${slots.sort().join(', ')}`);
    const expected = (Date.now() - t0) / PERIOD;
    assert.ok(
      both.length >= expected * 0.6 && both.length <= expected + 2,
      `about one run per period across both processes: ${both.length} runs in ${expected.toFixed(1)} periods (a: ${a.runs.length}, b: ${b.runs.length})`,
    );
    process.stdout.write(
      `# metrics rollup every ${PERIOD} ms: ${both.length} runs in ${expected.toFixed(1)} periods; process a ran ${a.runs.filter((r) => r.kind === METRICS_ROLLUP_JOB).length}, b ${b.runs.filter((r) => r.kind === METRICS_ROLLUP_JOB).length}\n`,
    );

    // kill -9 of a: b runs every turn from then on. (Should a have held the job at that moment,
    // b takes it when the 60 s lease runs out: the wait below allows for that.)
    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = Date.now();
    const afterKill = () => b.runs.filter((r) => r.kind === METRICS_ROLLUP_JOB && r.at > killedAt);
    await until(
      "b to run the rollup's turns after a was killed",
      () => afterKill().length >= 5,
      90_000,
      () => b.out,
    );

    process.stdout.write(`# after kill -9 of a, b's first rollup run came ${afterKill()[0].at - killedAt} ms later\n`);

    // A turn a dead process held (its lease still running) is taken by b once the lease runs out.
    await db.pool.query(
      `UPDATE jobs SET every_ms = $2, run_at = now(), locked_by = 'a-dead-process', locked_until = now() + interval '1 second' WHERE kind = $1`,
      [DOMAIN_RECHECK_JOB, PERIOD],
    );
    const leased = Date.now();
    await until(
      "b to take the dead process's leased turn",
      () => b.runs.some((r) => r.kind === DOMAIN_RECHECK_JOB && r.at > leased),
      30_000,
      () => b.out,
    );
    const takenAfter = b.runs.find((r) => r.kind === DOMAIN_RECHECK_JOB && r.at > leased)!.at - leased;
    process.stdout.write(`# a turn leased to a dead worker for 1 s was taken by b after ${takenAfter} ms\n`);
    assert.ok(takenAfter >= 900, 'not before the lease ran out');
    assert.deepEqual(await rowsPerKind(db), oneEach, 'still one row per task');
    b.child.kill('SIGTERM');
    await b.exited;
    assert.equal(b.child.exitCode, 0, b.out);
  });

  test('four schedulers starting at once create exactly one row per task', async () => {
    const pools = Array.from({ length: 4 }, () => createPool(db.url));
    try {
      for (let round = 0; round < 5; round++) {
        await db.pool.query('DELETE FROM jobs WHERE kind = ANY($1::text[])', [MAINTENANCE_KINDS]);
        await Promise.all(pools.map((p) => scheduleMaintenance(p)));
        assert.deepEqual(await rowsPerKind(db), oneEach, `round ${round}`);
      }
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  });
});

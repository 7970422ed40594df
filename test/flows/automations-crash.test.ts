// kill -9 of the worker in the middle of many automation runs: after a restart every run has
// completed, every send_email step sent exactly one email, and no step was lost or run twice.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';
import { mailroomEntry } from '../helpers/cli.js';

import { ROOT } from '../helpers/root.js';
const RUNS = 1000;

describe('automation runs survive kill -9 of their worker', () => {
  let db: TestDatabase;
  let api: TestApp;
  const dirs: string[] = [];
  before(async () => {
    db = await freshDatabase();
    api = await startTestApp({ roles: ['api'], deliveryMode: 'capture' }, { db });
  });
  after(async () => {
    await closeAll(
      () => api?.close(),
      () => db?.drop(),
      () => {
        for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      },
    );
  });

  test('1,000 runs of trigger → send_email → send_email, the worker killed midway, a new worker finishes: two emails per run, none twice', async (t) => {
    const domain = (await api.resend.domains.create({ name: 'example.com' })).data!;
    await api.resend.domains.verify(domain.id);
    const tpl = (
      await api.resend.templates.create({
        name: 'Hello',
        from: 'Acme <hello@example.com>',
        subject: 'Hello',
        html: '<p>Hi</p>',
      })
    ).data!.id;
    await api.resend.templates.publish(tpl);
    const a = await api.resend.automations.create({
      name: 'Two mails',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'signup' } },
        { key: 'first', type: 'send_email', config: { template: { id: tpl }, subject: 'First' } },
        { key: 'second', type: 'send_email', config: { template: { id: tpl }, subject: 'Second' } },
      ],
      connections: [
        { from: 't', to: 'first' },
        { from: 'first', to: 'second' },
      ],
    });
    assert.equal(a.error, null, JSON.stringify(a.error));
    // The events go through the API (no worker yet): 1,000 events wait in the automations' queue,
    // and the worker killed below starts their runs as well as running their steps.
    for (let i = 0; i < RUNS; i += 25) {
      await Promise.all(
        Array.from({ length: 25 }, (_, j) => api.resend.events.send({ event: 'signup', email: `u${i + j}@dest.test` })),
      );
    }
    assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM automation_event_queue')).rows[0].n, RUNS);
    assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM automation_runs')).rows[0].n, 0);

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-automation-kill-'));
    dirs.push(dataDir);
    const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH!,
        HOME: process.env.HOME!,
        MAILROOM_DATABASE_URL: db.url,
        MAILROOM_ROLES: 'worker',
        MAILROOM_DATA_DIR: dataDir,
        MAILROOM_SECRET_KEY: `test-secret:${db.url}`,
        MAILROOM_DELIVERY_MODE: 'capture',
      },
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let out = '';
    child.stdout!.on('data', (d) => {
      if (out.length < 50_000) out += d;
    });
    child.stderr!.on('data', (d) => {
      if (out.length < 50_000) out += d;
    });
    let sent = 0;
    try {
      for (let i = 0; i < 3000; i++) {
        // up to ~60 s for tsx to start and the worker to send over half the emails (into the second steps)
        sent = (await db.pool.query('SELECT count(*)::int AS n FROM emails')).rows[0].n;
        if (sent >= 1100) break;
        await sleep(20);
      }
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const atKill = (await db.pool.query(`SELECT count(*)::int AS n FROM automation_runs WHERE status = 'completed'`))
      .rows[0].n;
    t.diagnostic(`at the kill: ${sent} emails committed, ${atKill} of ${RUNS} runs completed`);
    assert.ok(
      sent >= 1100 && atKill < RUNS,
      `killed midway: ${sent} emails, ${atKill} of ${RUNS} runs completed\n${out}`,
    );

    await db.pool.query("UPDATE jobs SET locked_until = now() - interval '1 second' WHERE locked_by IS NOT NULL");
    const worker = await startTestApp({ roles: ['worker'], deliveryMode: 'capture' }, { db });
    try {
      for (let i = 0; ; i++) {
        const r = (await db.pool.query(`SELECT count(*)::int AS n FROM automation_runs WHERE status = 'completed'`))
          .rows[0].n;
        if (r === RUNS) break;
        assert.ok(i < 1200, `every run should complete: ${r} of ${RUNS}`);
        await sleep(50);
      }
    } finally {
      await worker.close();
    }
    const { rows } = await db.pool.query<{ to: string; subject: string; n: number }>(
      'SELECT to_addrs[1] AS to, subject, count(*)::int AS n FROM emails GROUP BY 1, 2',
    );
    assert.equal(rows.length, 2 * RUNS, `one "First" and one "Second" per run: ${rows.length} pairs for ${RUNS} runs`);
    assert.deepEqual(
      rows.filter((r) => r.n !== 1),
      [],
      'nothing sent twice',
    );
    const steps = (await db.pool.query(`SELECT status, count(*)::int AS n FROM automation_run_steps GROUP BY 1`)).rows;
    assert.deepEqual(steps, [{ status: 'completed', n: 3 * RUNS }], 'no step lost, none left open');
    assert.equal(
      (await db.pool.query('SELECT count(*)::int AS n FROM automation_event_queue')).rows[0].n,
      0,
      'every event was taken',
    );
    assert.equal(
      (await db.pool.query('SELECT count(*)::int AS n FROM automation_runs')).rows[0].n,
      RUNS,
      'one run per event, none twice',
    );
    const failedJobs = (await db.pool.query(`SELECT count(*)::int AS n FROM jobs WHERE kind = 'automations.step'`))
      .rows[0].n;
    assert.equal(failedJobs, 0);
  });
});

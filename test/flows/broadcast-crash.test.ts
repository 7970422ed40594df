// kill -9 of the worker in the middle of a broadcast's expansion (and of its deliveries): after a
// restart every eligible contact has exactly one email, delivered once, and nobody else has one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { broadcastGet } from '../helpers/mailroom-wire.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';
import { mailroomEntry } from '../helpers/cli.js';

import { ROOT } from '../helpers/root.js';
const CONTACTS = 3000;

describe('a broadcast survives kill -9 of its worker', () => {
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

  test('3,000 contacts, the worker killed mid-expansion, a new worker finishes: exactly one email per eligible contact', async () => {
    const domain = (await api.resend.domains.create({ name: 'example.com' })).data!;
    await api.resend.domains.verify(domain.id);
    const segment = (await api.resend.segments.create({ name: 'Everyone' })).data!.id;
    // Setup only (what is tested is the expansion): 3,000 members written in one statement, each
    // created a millisecond apart; every 30th globally unsubscribed.
    const team = api.app.defaultTeamId;
    await db.pool.query(
      `WITH c AS (
         INSERT INTO contacts (id, team_id, email, first_name, unsubscribed, created_at)
         SELECT gen_random_uuid(), $1, 'user' || i || '@dest.test', 'User' || i, i % 30 = 0, now() - (($2 - i) * interval '1 millisecond')
         FROM generate_series(1, $2) AS i RETURNING id)
       INSERT INTO contact_segments (contact_id, segment_id) SELECT id, $3 FROM c`,
      [team, CONTACTS, segment],
    );
    const suppressed = Array.from({ length: 100 }, (_, i) => `user${i * 7 + 1}@dest.test`).filter(
      (_, i) => (i * 7 + 1) % 30 !== 0,
    );
    const sup = await api.api('POST', '/suppressions/batch/add', { body: { emails: suppressed } });
    assert.equal(sup.status, 201, JSON.stringify(sup.body));
    const eligible = new Set(
      Array.from({ length: CONTACTS }, (_, i) => i + 1)
        .filter((i) => i % 30 !== 0)
        .map((i) => `user${i}@dest.test`),
    );
    for (const s of suppressed) eligible.delete(s);

    const started = Date.now();
    const b = await api.resend.broadcasts.create({
      segmentId: segment,
      from: 'News <news@example.com>',
      subject: 'Hi {{{FIRST_NAME}}}',
      text: 'Hello {{{FIRST_NAME}}}',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    assert.ok(Date.now() - started < 2000, 'send answers at once');
    const id = b.data!.id;

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-broadcast-kill-'));
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
        MAILROOM_BROADCAST_PAGE_SIZE: '100',
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
    let seen: { status: string; recipients: number } | undefined;
    try {
      for (let i = 0; i < 1500; i++) {
        // up to ~30 s for tsx to start and the job to commit a few pages
        seen = (await db.pool.query('SELECT status, recipients FROM broadcasts WHERE id = $1', [id])).rows[0];
        if (seen!.recipients >= 300) break;
        await sleep(20);
      }
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    assert.equal(
      seen!.status,
      'sending',
      `the expansion should be running at the kill: ${JSON.stringify(seen)}\n${out}`,
    );
    const atKill = (await db.pool.query('SELECT recipients FROM broadcasts WHERE id = $1', [id])).rows[0].recipients;
    assert.ok(atKill > 0 && atKill < eligible.size, `killed mid-expansion: ${atKill} of ${eligible.size}`);
    const emailsAtKill = (await db.pool.query('SELECT count(*)::int AS n FROM emails WHERE broadcast_id = $1', [id]))
      .rows[0].n;
    assert.equal(emailsAtKill, atKill, 'the cursor and the emails committed together');

    // The dead worker's leases would expire after 60 s; expire them now (test/queue covers expiry itself).
    await db.pool.query("UPDATE jobs SET locked_until = now() - interval '1 second' WHERE locked_by IS NOT NULL");
    const worker = await startTestApp({ roles: ['worker'], deliveryMode: 'capture', broadcastPageSize: 100 }, { db });
    try {
      for (let i = 0; ; i++) {
        const r = (
          await db.pool.query(
            `SELECT b.status, (SELECT count(*)::int FROM emails WHERE broadcast_id = b.id AND last_event = 'sent') AS queued FROM broadcasts b WHERE id = $1`,
            [id],
          )
        ).rows[0];
        if (r.status === 'sent' && r.queued === 0) break;
        assert.ok(i < 1000, `the broadcast should finish: ${JSON.stringify(r)}`);
        await sleep(50);
      }
    } finally {
      await worker.close();
    }
    const { rows } = await db.pool.query<{ to: string; delivered: number }>(
      `SELECT e.to_addrs[1] AS to, (SELECT count(*)::int FROM email_events ev WHERE ev.email_id = e.id AND ev.type = 'email.delivered') AS delivered
       FROM emails e WHERE e.broadcast_id = $1`,
      [id],
    );
    const got = rows.map((r) => r.to);
    assert.equal(got.length, eligible.size, `one email per eligible contact (${got.length} for ${eligible.size})`);
    assert.equal(new Set(got).size, got.length, 'nobody twice');
    assert.deepEqual(
      [...eligible].filter((a) => !got.includes(a)),
      [],
      'nobody skipped',
    );
    assert.deepEqual(
      rows.filter((r) => r.delivered !== 1).map((r) => [r.to, r.delivered]),
      [],
      'each delivered exactly once',
    );
    const b2 = await broadcastGet(api.resend, id);
    assert.deepEqual(b2.stats.skipped, { unsubscribed: 100, topic: 0, suppressed: suppressed.length });
    assert.equal(b2.stats.recipients, eligible.size);
  });
});

// The audit log as a store: the database refuses UPDATE, DELETE and TRUNCATE; concurrent writers
// in two pools (two processes' worth of connections) append one unforked chain; `mailroom audit
// verify` finds an edited entry and a removed one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { runMailroom } from '../helpers/cli.js';
import { createPool } from '../../src/store/db.js';
import { auditRecord, SYSTEM_ACTOR } from '../../src/audit/record.js';
import { verifyTeamChain } from '../../src/audit/verify.js';
import { teamCreate } from '../../src/store/teams.js';

describe('the audit log as a store', () => {
  let t: TestApp;
  let dataDir: string;
  before(async () => {
    t = await startTestApp();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-audit-cli-'));
  });
  after(async () => {
    fs.rmSync(dataDir, { recursive: true, force: true });
    await t.close();
  });

  const cli = (...args: string[]) =>
    runMailroom(['audit', ...args], {
      MAILROOM_DATABASE_URL: t.db.url,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_SECRET_KEY: `test-secret:${t.db.url}`,
    });

  test('the database refuses UPDATE, DELETE and TRUNCATE of entries, whoever asks', async () => {
    await t.resend.apiKeys.create({ name: 'logged' });
    const { rows } = await t.db.pool.query('SELECT id FROM audit_log LIMIT 1');
    assert.ok(rows[0], 'an entry exists');
    const refused = /append-only/;
    await assert.rejects(t.db.pool.query(`UPDATE audit_log SET action = 'api_key.revoked'`), refused);
    await assert.rejects(t.db.pool.query(`UPDATE audit_log SET summary = '{}' WHERE id = $1`, [rows[0].id]), refused);
    await assert.rejects(t.db.pool.query('DELETE FROM audit_log WHERE id = $1', [rows[0].id]), refused);
    await assert.rejects(t.db.pool.query('TRUNCATE audit_log'), refused);
    assert.equal(
      (await t.db.pool.query('SELECT count(*)::int AS n FROM audit_log WHERE id = $1', [rows[0].id])).rows[0].n,
      1,
    );
  });

  test('concurrent writers in two pools append one chain: no fork, no gap, no repeated seq', async () => {
    const team = await teamCreate(t.db.pool, 'concurrent');
    const a = createPool(t.db.url, 5);
    const b = createPool(t.db.url, 5);
    try {
      const write = (pool: typeof a, i: number) =>
        auditRecord(
          pool,
          team.id,
          { ...SYSTEM_ACTOR, display: `writer ${i}` },
          {
            action: 'api_key.created',
            target: { kind: 'api_key', id: `k${i}` },
            after: { name: `k${i}` },
          },
        );
      await Promise.all(Array.from({ length: 60 }, (_, i) => write(i % 2 ? a : b, i)));
    } finally {
      await Promise.all([a.end(), b.end()]);
    }
    const { rows } = await t.db.pool.query(
      'SELECT seq::int AS seq, prev_hash, hash FROM audit_log WHERE team_id = $1 ORDER BY seq',
      [team.id],
    );
    assert.deepEqual(
      rows.map((r) => r.seq),
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    for (let i = 1; i < rows.length; i++)
      assert.equal(rows[i].prev_hash, rows[i - 1].hash, `seq ${i + 1} follows ${i}`);
    const report = await verifyTeamChain(t.db.pool, team.id);
    assert.deepEqual(report, { team_id: team.id, entries: 60, problem: null });
  });

  test('a failed action leaves no entry (the entry is in its transaction)', async () => {
    const before = (await t.db.pool.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n;
    const r = await t.api('POST', '/api-keys', {
      body: { name: 'bound', permission: 'full_access', domain_id: crypto.randomUUID() },
    });
    assert.equal(r.status, 422);
    const dup = await t.resend.domains.create({ name: 'once.example.com' });
    assert.equal(dup.error, null);
    const n1 = (await t.db.pool.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n;
    assert.equal(n1, before + 1, 'only the domain that was created');
    assert.notEqual((await t.resend.domains.create({ name: 'once.example.com' })).error, null);
    assert.equal((await t.db.pool.query('SELECT count(*)::int AS n FROM audit_log')).rows[0].n, n1);
  });

  test('mailroom audit verify: 0 when intact, 1 naming an edited entry and a removed one', async () => {
    const ok = cli('verify');
    assert.equal(ok.status, 0, ok.stderr + ok.stdout);
    assert.match(ok.stdout, /intact, \d+ entries/);
    const team = t.app.defaultTeamId;
    await t.resend.apiKeys.create({ name: 'second' });
    await t.resend.apiKeys.create({ name: 'third' });
    const { rows } = await t.db.pool.query(
      'SELECT id, seq::int AS seq FROM audit_log WHERE team_id = $1 ORDER BY seq',
      [team],
    );
    assert.ok(rows.length >= 3);
    const victim = rows[1];
    // An intruder with the database's superuser: triggers off, one entry edited.
    const c = await t.db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete');
      await c.query(`UPDATE audit_log SET summary = '{"after": {"name": "innocent"}}' WHERE id = $1`, [victim.id]);
      await c.query('ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete');
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    // And a different team's entry removed: the gap is named.
    const other = await teamCreate(t.db.pool, 'gap');
    for (let i = 0; i < 4; i++)
      await auditRecord(t.db.pool, other.id, SYSTEM_ACTOR, {
        action: 'webhook.deleted',
        target: { kind: 'webhook', id: `w${i}` },
      });
    const gone = (await t.db.pool.query('SELECT id FROM audit_log WHERE team_id = $1 AND seq = 2', [other.id])).rows[0];
    const d = await t.db.pool.connect();
    try {
      await d.query('BEGIN');
      await d.query('ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete');
      await d.query('DELETE FROM audit_log WHERE id = $1', [gone.id]);
      await d.query('ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete');
      await d.query('COMMIT');
    } finally {
      d.release();
    }
    const all = cli('verify');
    assert.equal(all.status, 1, all.stdout + all.stderr);
    assert.match(
      all.stdout,
      new RegExp(`team ${team}: BROKEN: entry seq ${victim.seq} \\(id ${victim.id}\\) was changed`),
    );
    assert.match(all.stdout, new RegExp(`team ${other.id}: BROKEN: entry seq 2 is missing \\(next present: seq 3`));
    assert.match(all.stderr, /2 broken chain\(s\)/);
    const one = cli('verify', '--team', other.id);
    assert.equal(one.status, 1);
    assert.equal(one.stdout.trim().split('\n').length, 1, one.stdout);
  });

  test('removing the newest entries is found through the chain head', async () => {
    const team = await teamCreate(t.db.pool, 'tail');
    for (let i = 0; i < 3; i++)
      await auditRecord(t.db.pool, team.id, SYSTEM_ACTOR, {
        action: 'webhook.created',
        target: { kind: 'webhook', id: `w${i}` },
      });
    const c = await t.db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update_delete');
      await c.query('DELETE FROM audit_log WHERE team_id = $1 AND seq = 3', [team.id]);
      await c.query('ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update_delete');
      await c.query('COMMIT');
    } finally {
      c.release();
    }
    const r = await verifyTeamChain(t.db.pool, team.id);
    assert.equal(r.problem, 'entries seq 3 to 3 are missing (the newest)');
  });

  test('mailroom audit: usage errors exit 2', () => {
    assert.equal(cli().status, 2);
    assert.equal(cli('verify', '--team', 'nope').status, 2);
  });
});

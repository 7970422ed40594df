// SMTP AUTH lock-out, counted in PostgreSQL (login_throttle, key `smtp:<ip>`) so that every
// submission process sharing the database counts the same failures (issue 26).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthLockout, LOCK_S, lockoutKey, MAX_FAILURES } from '../../src/smtp/auth-lockout.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startTestApp } from '../helpers/harness.js';
import { listener, RawSmtp, SMTP_TEST_LISTENERS } from '../helpers/smtp-submit.js';
import type { TestApp } from '../helpers/harness.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db.drop();
});

test('an address is locked after MAX_FAILURES attempts in the window, for 15 minutes; a success gives back only its own count', async () => {
  const l = new AuthLockout(db.pool);
  const ip = '10.0.0.1';
  for (let i = 0; i < MAX_FAILURES - 2; i++) assert.equal(await l.begin(ip), 0);
  assert.equal(await l.begin(ip), 0);
  await l.succeed(ip);
  assert.equal(await l.begin(ip), 0, `${MAX_FAILURES - 1} failures so far`);
  assert.equal(await l.begin(ip), 0, 'the tenth is counted (and locks)');
  const wait = await l.begin(ip);
  assert.ok(wait > LOCK_S - 5 && wait <= LOCK_S, `locked for ~15 minutes: ${wait} s`);
  assert.equal(await l.begin('10.0.0.2'), 0, 'another address goes on');
  // A refused attempt does not stretch the lock: move the lock 60 s nearer its end and try again.
  await db.pool.query(`UPDATE login_throttle SET locked_until = locked_until - interval '60 s' WHERE key = $1`, [
    lockoutKey(ip),
  ]);
  const later = await l.begin(ip);
  assert.ok(later <= LOCK_S - 60, `refused attempts do not stretch the lock-out: ${later} s`);
  await db.pool.query(`UPDATE login_throttle SET locked_until = now() - interval '1 s' WHERE key = $1`, [
    lockoutKey(ip),
  ]);
  assert.equal(await l.begin(ip), 0, 'the lock has ended: a new window');
});

test('a success that completed the count lifts the lock-out it set: nine failures and a right key are not locked out', async () => {
  const l = new AuthLockout(db.pool);
  const ip = '10.0.0.4';
  for (let i = 0; i < MAX_FAILURES; i++) await l.begin(ip);
  await l.succeed(ip);
  assert.equal(await l.begin(ip), 0, 'not locked: the tenth attempt was the good one');
  assert.ok((await l.begin(ip)) > 0, 'the attempt before was the tenth failure');
});

test('failures older than the window do not add up', async () => {
  const l = new AuthLockout(db.pool);
  const ip = '10.0.0.3';
  for (let i = 0; i < MAX_FAILURES - 1; i++) await l.begin(ip);
  await db.pool.query(`UPDATE login_throttle SET window_start = now() - interval '11 minutes' WHERE key = $1`, [
    lockoutKey(ip),
  ]);
  for (let i = 0; i < MAX_FAILURES - 1; i++) assert.equal(await l.begin(ip), 0);
});

test('two submission processes on one database: failures on one count on the other', async () => {
  const apps: TestApp[] = [];
  try {
    for (let i = 0; i < 2; i++)
      apps.push(await startTestApp({ roles: ['api', 'smtp'], smtpListen: SMTP_TEST_LISTENERS }, { db }));
    const loginOnce = async (t: TestApp, key: string) => {
      const c = await RawSmtp.connect(listener(t, 'tls'), { tls: true, localAddress: '127.0.0.9' });
      try {
        await c.reply();
        await c.cmd('EHLO shared.test');
        return await c.login(key);
      } finally {
        c.close();
      }
    };
    const replies: string[] = [];
    for (let i = 0; i < MAX_FAILURES; i++) replies.push(await loginOnce(apps[i % 2], `re_wrong_${i}`));
    assert.ok(
      replies.every((r) => r.startsWith('535 5.7.8 ')),
      replies.join('\n'),
    );
    for (const t of apps)
      assert.match(
        await loginOnce(t, t.key),
        /^451 4\.7\.1 Too many failed authentication attempts from 127\.0\.0\.9/,
        'five failures on each process lock the address on both',
      );
  } finally {
    for (const t of apps) await t.close();
  }
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthLockout, MAX_FAILURES } from '../../src/smtp/auth-lockout.js';

test('an address is locked after MAX_FAILURES failures in the window, for 15 minutes; a success gives back only its own count', () => {
  let now = 1_000_000;
  const l = new AuthLockout(() => now);
  for (let i = 0; i < MAX_FAILURES - 2; i++) l.begin('10.0.0.1');
  l.begin('10.0.0.1');
  l.succeed('10.0.0.1');
  assert.equal(l.lockedFor('10.0.0.1'), 0);
  l.begin('10.0.0.1');
  assert.equal(l.lockedFor('10.0.0.1'), 0, `${MAX_FAILURES - 1} failures so far`);
  l.begin('10.0.0.1');
  assert.equal(l.lockedFor('10.0.0.1'), 15 * 60_000, 'the success before did not forgive the earlier failures');
  assert.equal(l.lockedFor('10.0.0.2'), 0);
  assert.equal(l.begin('10.0.0.1'), false, 'locked out: refused, even a right key');
  now += 60_000;
  assert.equal(l.begin('10.0.0.1'), false);
  assert.equal(l.lockedFor('10.0.0.1'), 14 * 60_000, 'refused attempts do not stretch the lock-out');
  now += 14 * 60_000 + 1;
  assert.equal(l.lockedFor('10.0.0.1'), 0);
});

test('a success that completed the count lifts the lock-out it set: nine failures and a right key are not locked out', () => {
  const l = new AuthLockout(() => 0);
  for (let i = 0; i < MAX_FAILURES - 1; i++) l.begin('10.0.0.4');
  l.begin('10.0.0.4');
  assert.ok(l.lockedFor('10.0.0.4') > 0, 'counted before the check');
  l.succeed('10.0.0.4');
  assert.equal(l.lockedFor('10.0.0.4'), 0);
  l.begin('10.0.0.4');
  assert.ok(l.lockedFor('10.0.0.4') > 0, 'the next failure is the tenth');
});

test('failures spread wider than the window do not add up', () => {
  let now = 0;
  const l = new AuthLockout(() => now);
  for (let i = 0; i < MAX_FAILURES * 3; i++) {
    l.begin('10.0.0.3');
    now += 2 * 60_000;
  }
  assert.equal(l.lockedFor('10.0.0.3'), 0);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AuthLockout, MAX_FAILURES } from '../../src/smtp/auth-lockout.js';

test('an address is locked after MAX_FAILURES failures in the window, for 15 minutes; a success before that clears the count', () => {
  let now = 1_000_000;
  const l = new AuthLockout(() => now);
  for (let i = 0; i < MAX_FAILURES - 1; i++) l.begin('10.0.0.1');
  assert.equal(l.lockedFor('10.0.0.1'), 0);
  l.succeed('10.0.0.1');
  l.begin('10.0.0.1');
  assert.equal(l.lockedFor('10.0.0.1'), 0, 'the success reset the count');
  for (let i = 0; i < MAX_FAILURES - 1; i++) l.begin('10.0.0.1');
  assert.equal(l.lockedFor('10.0.0.1'), 15 * 60_000);
  assert.equal(l.lockedFor('10.0.0.2'), 0);
  l.succeed('10.0.0.1');
  assert.ok(l.lockedFor('10.0.0.1') > 0, 'a lock-out is not lifted by a success');
  now += 15 * 60_000 + 1;
  assert.equal(l.lockedFor('10.0.0.1'), 0);
});

test('failures spread wider than the window do not add up', () => {
  let now = 0;
  const l = new AuthLockout(() => now);
  for (let i = 0; i < MAX_FAILURES * 3; i++) { l.begin('10.0.0.3'); now += 2 * 60_000; }
  assert.equal(l.lockedFor('10.0.0.3'), 0);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffMs } from '../../src/queue/backoff.js';

test('the retry delay doubles per attempt, between half and all of base·2^(attempt-1)', () => {
  for (const attempt of [1, 2, 3, 8]) {
    const full = 1000 * 2 ** (attempt - 1);
    assert.equal(
      backoffMs(attempt, {}, () => 0),
      full / 2,
    );
    assert.equal(
      backoffMs(attempt, {}, () => 1),
      full,
    );
  }
});

test('the retry delay is capped, even for absurd attempt counts', () => {
  assert.equal(
    backoffMs(13, {}, () => 1),
    3_600_000,
  );
  assert.equal(
    backoffMs(10_000, { baseMs: 10, maxMs: 5_000 }, () => 1),
    5_000,
  );
  assert.equal(
    backoffMs(0, { baseMs: 10 }, () => 1),
    10,
  );
});

test('jitter spreads retries of jobs that failed together', () => {
  const delays = new Set(Array.from({ length: 50 }, () => backoffMs(5)));
  assert.ok(delays.size > 40);
  for (const d of delays) assert.ok(d >= 8_000 && d <= 16_000);
});

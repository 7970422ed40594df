// src/mime/mime-fast.ts's pieces that keep state between calls: the Date header's string, kept for
// the second it stands for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rfc2822Date } from '../../src/mime/mime-fast.js';
import { prng } from '../helpers/prng.js';

const direct = (d: Date) => d.toUTCString().replace(/GMT/, '+0000');

test('rfc2822Date gives the Date header of each instant, reused only within its second', () => {
  const rnd = prng(31);
  const times: number[] = [];
  let t = Date.UTC(2026, 10, 27, 18, 0, 0);
  for (let i = 0; i < 5000; i++) {
    t += Math.floor(rnd() * 700); // same second often, the next one as often
    times.push(t);
  }
  // around and before the epoch (negative times round down too), and far apart
  times.push(-1500, -1000, -999, -1, 0, 999, 1000, 1001, 8.64e15, -8.64e15, Date.UTC(1999, 11, 31, 23, 59, 59, 999));
  times.push(Date.UTC(2000, 0, 1), Date.UTC(2000, 0, 1, 0, 0, 0, 1), Date.UTC(1999, 11, 31, 23, 59, 59, 999));
  for (const x of times) assert.equal(rfc2822Date(new Date(x)), direct(new Date(x)), String(x));
  assert.equal(rfc2822Date(new Date(Number.NaN)), 'Invalid Date');
  assert.equal(rfc2822Date(new Date(Number.NaN)), 'Invalid Date');
  assert.equal(rfc2822Date(new Date(5_000)), 'Thu, 01 Jan 1970 00:00:05 +0000');
});

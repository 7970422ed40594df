// The date check of filter rules and list filters (lib/timestamp-text.ts) against the real
// PostgreSQL: whatever it accepts, `$1::timestamptz` accepts too and reads as the same instant as
// JavaScript (the SQL and in-memory evaluators of a filter must agree). Seeded: same corpus each run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { timestampMs, timestampProblem, timestampText } from '../../src/lib/timestamp-text.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { prng } from '../helpers/prng.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase({ migrate: false });
});
after(async () => {
  await db.drop();
});

/** PostgreSQL's reading of `v` in milliseconds (floored, as Date.parse drops digits past the millisecond), or its error. */
async function pgMs(v: string): Promise<number | string> {
  try {
    const { rows } = await db.pool.query<{ ms: string }>(
      `SELECT floor(extract(epoch FROM $1::timestamptz) * 1000)::text AS ms`,
      [v],
    );
    return Number(rows[0].ms);
  } catch (err) {
    return (err as Error).message;
  }
}

test('the dates of issue 24 are refused; real calendar dates, leap days and offsets up to ±15:59 are accepted', () => {
  for (const bad of [
    '2026-02-31',
    '0000-01-01',
    '2026-01-01T00:00-23:59',
    '2026-01-01T00:00+16:00',
    '2023-02-29',
    '1900-02-29',
    '2026-13-01',
    '2026-04-31T10:00:00Z',
    '2026-01-01T24:00:00',
    '2026-01-01T10:60',
    '2026-01-01T10:00:60Z',
    'tomorrow',
    '2026-1-1',
    '',
  ]) {
    assert.ok(timestampProblem(bad), `${bad} should be refused`);
  }
  for (const ok of [
    '2026-01-31',
    '2024-02-29',
    '2000-02-29',
    '0001-01-01',
    '9999-12-31T23:59:59.999999-15:59',
    '2026-01-01T00:00+15:59',
    '2026-03-01 10:00:00.123456+00',
    '2026-01-01T10:00:00+0530',
    '2026-01-01T10:00',
  ]) {
    assert.equal(timestampProblem(ok), undefined, ok);
  }
});

test('fuzz: every date-ish string the check accepts, PostgreSQL accepts as the instant JavaScript reads', async () => {
  const rnd = prng(24);
  const int = (n: number) => Math.floor(rnd() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
  const pad = (n: number, w = 2) => String(n).padStart(w, '0');
  const year = () =>
    pick(['0000', '0001', '0099', '1582', '1900', '1969', '1970', '2000', '2024', '2026', '9999', pad(int(10_000), 4)]);
  const time = () => {
    let s = `${pick(['T', ' ', 't', '  '])}${pad(int(26))}:${pad(int(62))}`;
    if (rnd() < 0.7) s += `:${pad(int(62))}`;
    if (rnd() < 0.4) s += `.${String(int(10_000_000)).slice(0, 1 + int(7))}`;
    const r = rnd();
    if (r < 0.2) s += pick(['Z', 'z', 'UTC']);
    else if (r < 0.7) {
      const hh = pad(pick([0, 1, 5, 9, 12, 14, 15, 16, 18, 23, 24, int(30)]));
      s += `${pick(['+', '-'])}${hh}${pick(['', ':', ''])}${rnd() < 0.6 ? pad(pick([0, 30, 45, 59, 60, int(70)])) : ''}`;
    }
    return s;
  };
  const mutate = (s: string) => {
    const i = int(s.length + 1);
    const r = rnd();
    if (r < 0.33) return s.slice(0, i) + s.slice(i + 1);
    if (r < 0.66) return s.slice(0, i) + pick(['0', '9', '-', ':', ' ', 'T', '+', '.', 'Z', '1']) + s.slice(i);
    return s.slice(0, i);
  };
  const corpus: string[] = [];
  for (let n = 0; n < 3000; n++) {
    let s = `${year()}-${pad(int(14))}-${pad(pick([int(33), 28, 29, 30, 31]))}`;
    if (rnd() < 0.75) s += time();
    if (rnd() < 0.2) s = mutate(s);
    corpus.push(s);
  }
  let accepted = 0;
  const disagreements: unknown[] = [];
  for (const v of corpus) {
    if (timestampProblem(v)) continue;
    accepted++;
    // What the SQL evaluator sends (the zone spelled out) and the text as the client wrote it.
    for (const text of [timestampText(v), v]) {
      const pg = await pgMs(text);
      if (pg !== timestampMs(v)) disagreements.push({ v, text, pg, js: timestampMs(v) });
    }
  }
  assert.deepEqual(disagreements.slice(0, 10), []);
  assert.ok(accepted > 300, `the corpus should exercise acceptance too (accepted ${accepted} of ${corpus.length})`);
});

// The group commit (queue/batcher.ts): concurrent callers share one flush, and a flush that fails
// because of one entry is tried again entry by entry, so only that entry's caller sees the error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Batcher } from '../../src/queue/batcher.js';
import { customEventsInsertBatch, type CustomEventNew } from '../../src/store/custom-events.js';
import { teamCreate } from '../../src/store/teams.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db.drop();
});

test('items added in the same turn share one flush and get their own results, in order', async () => {
  const flushes: number[][] = [];
  const b = new Batcher<number, number>(async (xs) => {
    flushes.push(xs);
    return xs.map((x) => x * 2);
  });
  assert.deepEqual(await Promise.all([1, 2, 3].map((x) => b.add(x))), [2, 4, 6]);
  assert.deepEqual(flushes, [[1, 2, 3]]);
});

test('with flushes allowed in flight, an item is flushed at once, not behind a running flush; past the bound, it waits for one to end', async () => {
  const started: number[][] = [];
  const gates: (() => void)[] = [];
  const b = new Batcher<number, number>(async (xs) => {
    started.push(xs);
    await new Promise<void>((r) => gates.push(r));
    return xs;
  }, 2);
  const settle = (ms = 20) => new Promise((r) => setTimeout(r, ms));
  const first = b.add(1);
  assert.deepEqual(started, [[1]], 'in the same turn');
  const second = b.add(2); // the first flush still runs: a second starts at once
  await settle();
  assert.deepEqual(started, [[1], [2]]);
  const third = [b.add(3), b.add(4)]; // both flushes busy: these wait, then go together
  await settle();
  assert.equal(started.length, 2);
  gates[0]();
  assert.equal(await first, 1);
  await settle();
  assert.deepEqual(started[2], [3, 4]);
  gates[1]();
  gates[2]();
  assert.deepEqual(await Promise.all([second, ...third]), [2, 3, 4]);
});

test('with a linger, items added within it share one flush that starts when it ends, or at once when lingerMax wait', async () => {
  const started: { at: number; xs: number[] }[] = [];
  const b = new Batcher<number, number>(
    async (xs) => {
      started.push({ at: performance.now(), xs });
      return xs;
    },
    8,
    { lingerMs: 40, lingerMax: 3 },
  );
  const t0 = performance.now();
  const first = b.add(1);
  await new Promise((r) => setTimeout(r, 10));
  const second = b.add(2);
  assert.equal(started.length, 0, 'the first item lingers');
  assert.deepEqual(await Promise.all([first, second]), [1, 2]);
  assert.deepEqual(started[0].xs, [1, 2]);
  // Not before the linger is over (timers may fire late on a busy machine, never early).
  assert.ok(started[0].at - t0 >= 39, `flushed after ${started[0].at - t0} ms`);
  const many = [b.add(3), b.add(4), b.add(5)];
  assert.deepEqual(started[1].xs, [3, 4, 5], 'lingerMax waiting: at once, in the same turn');
  assert.deepEqual(await Promise.all(many), [3, 4, 5]);
});

test('a flush failing because of one item fails only that item: the others are flushed again one by one, in order', async () => {
  const flushes: number[][] = [];
  const b = new Batcher<number, number>(async (xs) => {
    flushes.push(xs);
    if (xs.includes(13)) throw new Error('13 is refused');
    return xs.map((x) => x * 2);
  });
  const results = await Promise.allSettled([11, 12, 13, 14].map((x) => b.add(x)));
  assert.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message)),
    [22, 24, '13 is refused', 28],
  );
  assert.deepEqual(flushes, [[11, 12, 13, 14], [11], [12], [13], [14]]);
  // A lone item's failure is not tried twice.
  await assert.rejects(b.add(13), /13 is refused/);
  assert.equal(flushes.length, 6);
});

test('custom events of two teams in one batch: an entry PostgreSQL refuses (its contact deleted meanwhile) fails alone, the rest are stored', async () => {
  const a = await teamCreate(db.pool, 'A');
  const other = await teamCreate(db.pool, 'B');
  // As custom-events/record.ts builds its commit batcher.
  const commit = new Batcher<CustomEventNew, unknown>((items) => customEventsInsertBatch(db.pool, items, []));
  const event = (teamId: string, i: number, contactId: string | null = null): CustomEventNew => ({
    team_id: teamId,
    name: 'batch.mixed',
    contact_id: contactId,
    email: `u${i}@example.org`,
    payload: { i },
  });
  // A contact id that passed the edge (a UUID of a contact that existed when looked up) but is gone now: a foreign key violation.
  const gone = '00000000-0000-4000-8000-00000000dead';
  const items = [
    ...Array.from({ length: 20 }, (_, i) => event(other.id, i)),
    event(a.id, 99, gone),
    ...Array.from({ length: 20 }, (_, i) => event(other.id, 20 + i)),
  ];
  const results = await Promise.allSettled(items.map((e) => commit.add(e)));
  const refused = results.flatMap((r, i) =>
    r.status === 'rejected' ? [{ i, code: (r.reason as { code?: string }).code }] : [],
  );
  assert.deepEqual(refused, [{ i: 20, code: '23503' }]);
  const { rows } = await db.pool.query<{ team_id: string; i: number }>(
    `SELECT team_id, (payload->>'i')::int AS i FROM custom_events WHERE name = 'batch.mixed' ORDER BY (payload->>'i')::int`,
  );
  assert.equal(rows.length, 40);
  assert.ok(rows.every((r) => r.team_id === other.id));
  assert.deepEqual(
    rows.map((r) => r.i),
    Array.from({ length: 40 }, (_, i) => i),
  );
});

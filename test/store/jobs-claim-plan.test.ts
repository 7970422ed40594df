// The claim's cost does not depend on the jobs table's statistics: with stale ones (analyzed when
// the queue was nearly empty, then 5,000 deliveries queued at once) it
// walks jobs_due_kind in order and stops at the LIMIT (mailroom_jobs_claim, 0033, 0080), never reads
// every due job and sorts them.
import { after, before, test } from 'node:test';
import type pg from 'pg';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { countersDuring } from '../helpers/xact-counters.js';
import {
  DELIVER_JOB,
  deliverJobsInsertSql,
  jobsClaimDue,
  jobsDeleteMany,
  jobsNextRunIn,
} from '../../src/store/jobs.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db?.drop();
});

test('a claim fetches about as many rows as it leases, whatever the statistics', async () => {
  await db.pool.query(
    `INSERT INTO jobs (kind, payload, run_at) SELECT 'webhooks.sweep', '{}', now() + interval '1 hour' FROM generate_series(1, 5)`,
  );
  await db.pool.query('ANALYZE jobs'); // statistics of a nearly empty queue
  await db.pool.query(deliverJobsInsertSql('$1'), [
    JSON.stringify(
      Array.from({ length: 5_000 }, (_, i) => ({
        payload: {
          email_id: randomUUID(),
          team_id: randomUUID(),
          domain: 'dest.test',
          recipients: [`r${i}@dest.test`],
        },
        run_at: new Date(Date.now() - 60_000 + i).toISOString(),
        region: 'us-east-1',
        priority: 2,
      })),
    ),
  ]);
  const c = await db.pool.connect();
  try {
    // Eight claims on one session: past the plan cache's five custom plans, the plan kept for the
    // session (0071: PL/pgSQL, a generic plan) must be the same walk.
    for (let i = 0; i < 8; i++) {
      // The transaction's own counters: what this one claim read of the jobs table.
      await c.query('BEGIN');
      const leased = await jobsClaimDue(c, 'w1', { kinds: [DELIVER_JOB, 'contacts.import'] }, 50, 60_000);
      const {
        rows: [read],
      } = await c.query<{ idx: number; seq: number }>(
        `SELECT coalesce(idx_tup_fetch, 0)::int AS idx, coalesce(seq_tup_read, 0)::int AS seq FROM pg_stat_xact_user_tables WHERE relname = 'jobs'`,
      );
      await c.query('COMMIT');
      assert.equal(leased.length, 50);
      assert.equal(read.seq, 0, `no sequential scan (claim ${i + 1})`);
      // The walk: 50 rows through jobs_due_kind, then each leased row by primary key (later
      // claims also step over the index entries of the rows leased before: ~100-2,200 rows, the
      // same with 0037's SQL function). Sorting the due jobs instead fetches all 5,000 every time.
      if (i === 0) assert.ok(read.idx <= 150, `rows fetched through indexes: ${read.idx}`);
      assert.ok(read.idx < 2_500, `rows fetched through indexes, claim ${i + 1}: ${read.idx}`);
    }
  } finally {
    c.release();
  }
  // The claim and the next-due look still answer as before.
  assert.equal((await jobsClaimDue(db.pool, 'w2', { kinds: [DELIVER_JOB] }, 50, 60_000)).length, 50);
  assert.equal(await jobsNextRunIn(db.pool, { kinds: [DELIVER_JOB] }), 0);
  const later = await jobsNextRunIn(db.pool, { kinds: ['webhooks.sweep'] });
  assert.ok(later !== undefined && later > 3_500_000 && later <= 3_600_000, String(later));
  assert.equal(await jobsNextRunIn(db.pool, { kinds: ['automations.wake'] }), undefined);
});

/** What one call read of the jobs table, from its transaction's own counters. */
const readBy = (c: pg.PoolClient, call: () => Promise<unknown>) =>
  countersDuring<'idx' | 'seq'>(
    c,
    `SELECT coalesce(idx_tup_fetch, 0)::int AS idx, coalesce(seq_tup_read, 0)::int AS seq FROM pg_stat_xact_user_tables WHERE relname = 'jobs'`,
    call,
  );

for (const queued of [5, 20_000]) {
  test(`the claim, the next-due look and the job end planned by a session with ${queued} jobs queued read only what they need once 10,000 more are`, async () => {
    // A session keeps the generic plans it made at its first calls (0071). Made on a nearly empty
    // queue (a quiet moment, or an autovacuum's ANALYZE of one), the claim's UPDATE hash-joined a
    // sequential scan of jobs and the next-due look read the table in full; made on a long one,
    // the claim's UPDATE did the same (a generic LIMIT is taken for a tenth of the table): every
    // claim then read every queued job (~2-6 ms each with 10,000-30,000 queued).
    await db.pool.query('TRUNCATE jobs'); // a table of as many pages as it holds rows for
    await db.pool.query(
      `INSERT INTO jobs (kind, payload, run_at) SELECT 'email.deliver', '{}', now() FROM generate_series(1, ${queued})`,
    );
    await db.pool.query('ANALYZE jobs');
    const c = await db.pool.connect();
    try {
      for (let i = 0; i < 7; i++) {
        const [job] = await jobsClaimDue(c, 'w1', { kinds: [DELIVER_JOB] }, 1, 60_000);
        await jobsNextRunIn(c, { kinds: [DELIVER_JOB] });
        await jobsDeleteMany(c, 'w1', job ? [job.id] : ['0']);
      }
      await db.pool.query(
        `INSERT INTO jobs (kind, payload, run_at) SELECT 'email.deliver', '{}', now() FROM generate_series(1, 10000)`,
      );
      // in flight: leased to other workers, the front of the queue
      await db.pool.query(
        `UPDATE jobs SET locked_by = 'other', locked_until = now() + interval '1 minute' WHERE id IN (SELECT id FROM jobs ORDER BY id LIMIT 300)`,
      );
      const claim = await readBy(c, () => jobsClaimDue(c, 'w1', { kinds: [DELIVER_JOB] }, 8, 60_000));
      assert.equal(claim.seq, 0, 'the claim read jobs sequentially');
      assert.ok(claim.idx < 1_000, `the claim fetched ${claim.idx} rows through indexes`);
      const next = await readBy(c, () => jobsNextRunIn(c, { kinds: [DELIVER_JOB] }));
      assert.equal(next.seq, 0, 'the next-due look read jobs sequentially');
      assert.ok(next.idx < 1_000, `the next-due look fetched ${next.idx} rows through indexes`);
      assert.equal(await jobsNextRunIn(c, { kinds: [DELIVER_JOB] }), 0);
      const [job] = await jobsClaimDue(c, 'w1', { kinds: [DELIVER_JOB] }, 1, 60_000);
      const end = await readBy(c, async () => assert.deepEqual(await jobsDeleteMany(c, 'w1', [job.id]), [job.id]));
      assert.equal(end.seq, 0, 'the job end read jobs sequentially');
      assert.ok(end.idx < 50, `the job end fetched ${end.idx} rows through indexes`);
    } finally {
      c.release();
    }
  });
}

test('a backlog of one kind is not walked by the claims and next-due looks of workers that run others', async () => {
  // Every pending job used to sit in one index in (priority, run_at) order, filtered on the kind:
  // with 10,000 deliveries queued, the webhook worker's claims read ~4,400 rows to find none
  // (pg-cost's delivery leg, ~1.2 ms each), and its next-due looks as many.
  await db.pool.query('TRUNCATE jobs');
  await db.pool.query(
    `INSERT INTO jobs (kind, payload, run_at) SELECT 'email.deliver', '{}', now() - interval '1 minute' FROM generate_series(1, 10000)`,
  );
  await db.pool.query(
    `INSERT INTO jobs (kind, payload, run_at, priority) VALUES ('webhooks.deliver', '{"n": 1}', now(), 5), ('webhooks.deliver', '{"n": 2}', now() + interval '1 hour', 5)`,
  );
  await db.pool.query('ANALYZE jobs');
  const c = await db.pool.connect();
  try {
    const webhooks = { kinds: ['webhooks.deliver', 'webhooks.dispatch'] };
    for (let i = 0; i < 7; i++) {
      const next = await readBy(c, () => jobsNextRunIn(c, webhooks));
      assert.equal(next.seq, 0);
      assert.ok(next.idx < 20, `the next-due look fetched ${next.idx} rows`);
    }
    const claim = await readBy(c, async () => {
      const got = await jobsClaimDue(c, 'w1', webhooks, 10, 60_000);
      assert.deepEqual(
        got.map((j) => j.payload),
        [{ n: 1 }],
      );
    });
    assert.equal(claim.seq, 0);
    assert.ok(claim.idx < 20, `the claim fetched ${claim.idx} rows`);
    const none = await readBy(c, async () =>
      assert.equal((await jobsClaimDue(c, 'w1', webhooks, 10, 60_000)).length, 0),
    );
    assert.ok(none.idx < 20, `an empty claim fetched ${none.idx} rows`);
    const later = await jobsNextRunIn(c, webhooks);
    assert.ok(later !== undefined && later > 3_500_000, String(later));
    // Across kinds, the claim still takes the lowest priority first, then the oldest.
    await db.pool.query(
      `INSERT INTO jobs (kind, payload, run_at, priority) VALUES ('webhooks.dispatch', '{"n": 3}', now() - interval '2 minutes', 9),
         ('webhooks.dispatch', '{"n": 4}', now() - interval '1 second', 0), ('webhooks.deliver', '{"n": 5}', now() - interval '5 seconds', 0)`,
    );
    const first = await jobsClaimDue(c, 'w1', webhooks, 2, 60_000);
    assert.deepEqual(
      first.map((j) => j.payload),
      [{ n: 5 }, { n: 4 }],
    );
    const second = await jobsClaimDue(c, 'w1', webhooks, 2, 60_000);
    assert.deepEqual(
      second.map((j) => j.payload),
      [{ n: 3 }],
    );
  } finally {
    c.release();
  }
});

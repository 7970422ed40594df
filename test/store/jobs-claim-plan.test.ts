// The claim's cost does not depend on the jobs table's statistics: with stale ones (analyzed when
// the queue was nearly empty, then 5,000 deliveries queued at once) it
// walks jobs_due_priority in order and stops at the LIMIT (mailroom_jobs_claim, 0033), never reads
// every due job and sorts them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { DELIVER_JOB, deliverJobsInsertSql, jobsClaimDue, jobsNextRunIn } from '../../src/store/jobs.js';

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
      // The walk: 50 rows through jobs_due_priority, then each leased row by primary key (later
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

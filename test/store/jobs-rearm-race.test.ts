// A run that ends while an event re-arms its job (automations_wake, 0037) in a transaction not yet
// committed: the end must see the mark and leave the job due, not leave it leased to a worker that
// has let it go. (One statement that read `rearmed` from its snapshot did neither: the job stayed
// leased for its whole lease, 60 s, and the events behind it waited; CI saw it under a burst.)
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { jobsDeleteMany } from '../../src/store/jobs.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db.drop();
});

async function leasedWakeJob(): Promise<string> {
  await db.pool.query('SELECT automations_wake()');
  const { rows } = await db.pool.query<{ id: string }>(
    `UPDATE jobs SET locked_by = 'w1', locked_until = now() + interval '60 seconds', rearmed = false
     WHERE kind = 'automations.event' RETURNING id`,
  );
  return rows[0].id;
}

test('a re-arm committed while the run ends leaves the job due and unleased', async () => {
  const id = await leasedWakeJob();
  const event = new pg.Client({ connectionString: db.url });
  await event.connect();
  try {
    await event.query('BEGIN');
    await event.query('SELECT automations_wake()'); // marks the leased job, holds its row
    const ending = jobsDeleteMany(db.pool, 'w1', [id]); // waits for that row
    await new Promise((r) => setTimeout(r, 200));
    await event.query('COMMIT');
    assert.deepEqual(await ending, [id], 'ended by its worker');
  } finally {
    await event.end();
  }
  const { rows } = await db.pool.query(
    'SELECT locked_by, locked_until, rearmed, run_at <= now() AS due FROM jobs WHERE id = $1',
    [id],
  );
  assert.deepEqual(rows, [{ locked_by: null, locked_until: null, rearmed: false, due: true }]);
  await db.pool.query('DELETE FROM jobs');
});

test('without a re-arm the ended job is deleted; a re-arm after the end makes a new job', async () => {
  const id = await leasedWakeJob();
  assert.deepEqual(await jobsDeleteMany(db.pool, 'w1', [id]), [id]);
  assert.equal((await db.pool.query('SELECT 1 FROM jobs WHERE id = $1', [id])).rowCount, 0);
  await db.pool.query('SELECT automations_wake()');
  const { rows } = await db.pool.query(`SELECT locked_by FROM jobs WHERE kind = 'automations.event'`);
  assert.deepEqual(rows, [{ locked_by: null }]);
  await db.pool.query('DELETE FROM jobs');
});

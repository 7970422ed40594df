// A delivery job's end shares its results' statement (issue 27: one commit fewer per job): the
// results statement deletes the job only while it is leased to the worker that recorded them,
// and a statement that fails leaves both the results and the job as they were (a kill -9 before
// the commit: the job runs again; after it: nothing is left to run).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, seedDomain, type TestDatabase } from '../helpers/db.js';
import type { EventInsert } from '../../src/store/emails.js';
import { emailEventsInsertMany } from '../../src/store/email-delivery.js';
import { jobsClaimDue } from '../../src/store/jobs.js';

let db: TestDatabase;
const team = randomUUID();
const domain = randomUUID();

before(async () => {
  db = await freshDatabase();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [team, 'ends']);
  await seedDomain(db.pool, { id: domain, teamId: team, name: 'ends.test' });
});
after(async () => {
  await db.drop();
});

async function emailWithJob(): Promise<{ email: string; job: string }> {
  const email = randomUUID();
  await db.pool.query(
    `INSERT INTO emails (id, team_id, domain_id, message_id, from_header, to_addrs, subject, last_event)
     VALUES ($1, $2, $3, $4, 'a@ends.test', ARRAY['r@y.test'], 's', 'sent')`,
    [email, team, domain, `<${email}@ends.test>`],
  );
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO jobs (kind, payload, run_at) VALUES ('email.deliver', $1, now() - interval '1 second') RETURNING id`,
    [{ email_id: email, team_id: team, domain: 'y.test', recipients: ['r@y.test'] }],
  );
  return { email, job: rows[0].id };
}

const delivered = (email: string, id = randomUUID()): EventInsert => ({
  id,
  email_id: email,
  team_id: team,
  type: 'email.delivered',
  recipient: 'r@y.test',
  data: {},
  detail: { response: '250 ok' },
  created_at: new Date().toISOString(),
});

const jobExists = async (id: string) => (await db.pool.query('SELECT 1 FROM jobs WHERE id = $1', [id])).rowCount === 1;
const events = async (email: string) =>
  (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM email_events WHERE email_id = $1', [email]))
    .rows[0].n;

test('the results statement ends the job leased to its worker, and only that one', async () => {
  const a = await emailWithJob();
  const b = await emailWithJob();
  const c = await emailWithJob();
  const claimed = await jobsClaimDue(db.pool, 'w1', { kinds: ['email.deliver'] }, 10, 60_000);
  assert.deepEqual(claimed.map((r) => r.id).sort(), [a.job, b.job, c.job].sort());
  await emailEventsInsertMany(db.pool, [
    { events: [delivered(a.email)], lastEvent: 'delivered', endJob: { id: a.job, workerId: 'w1' } },
    // A lease this worker no longer holds (taken over by w2): the results are recorded, the job is w2's.
    { events: [delivered(b.email)], lastEvent: 'delivered', endJob: { id: b.job, workerId: 'w2' } },
    // No end asked (a broadcast run's copy): the job stays for the worker to end.
    { events: [delivered(c.email)], lastEvent: 'delivered' },
  ]);
  assert.equal(await jobExists(a.job), false, 'ended with its results');
  assert.equal(await jobExists(b.job), true, "another worker's lease is not ended");
  assert.equal(await jobExists(c.job), true);
  for (const e of [a, b, c]) assert.equal(await events(e.email), 1);
  const { rows } = await db.pool.query<{ last_event: string }>(
    'SELECT last_event FROM emails WHERE id = ANY($1::uuid[])',
    [[a.email, b.email, c.email]],
  );
  assert.deepEqual(
    rows.map((r) => r.last_event),
    ['delivered', 'delivered', 'delivered'],
  );
});

test('a results statement that fails ends no job: results and end commit together or not at all', async () => {
  const a = await emailWithJob();
  await jobsClaimDue(db.pool, 'w1', { kinds: ['email.deliver'] }, 10, 60_000);
  const id = randomUUID();
  await emailEventsInsertMany(db.pool, [{ events: [delivered(a.email, id)] }]); // recorded earlier
  // The same event id again (a primary key violation): the whole statement fails.
  await assert.rejects(
    emailEventsInsertMany(db.pool, [
      { events: [delivered(a.email, id)], lastEvent: 'delivered', endJob: { id: a.job, workerId: 'w1' } },
    ]),
  );
  assert.equal(await jobExists(a.job), true, 'the job is still there to run again');
  assert.equal(await events(a.email), 1);
  // An end with no events (nothing left to record) still ends the job.
  await emailEventsInsertMany(db.pool, [{ events: [], endJob: { id: a.job, workerId: 'w1' } }]);
  assert.equal(await jobExists(a.job), false);
});

test('the job is ended by its key however long the queue: no results statement reads the whole jobs table', async () => {
  // A backlog (the JSON set of ends is taken for 100 rows: as a join, reading 3,000 queued jobs was
  // the cheaper plan, in every results statement, 1-4 ms each in bench/delivery.ts).
  await db.pool.query(
    `INSERT INTO jobs (kind, payload, run_at) SELECT 'email.deliver', '{}'::jsonb, now() + interval '1 hour' FROM generate_series(1, 3000)`,
  );
  await db.pool.query('ANALYZE jobs');
  const a = await emailWithJob();
  await db.pool.query(`UPDATE jobs SET locked_by = 'w9', locked_until = now() + interval '1 minute' WHERE id = $1`, [
    a.job,
  ]);
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await emailEventsInsertMany(client, [
      { events: [delivered(a.email)], lastEvent: 'delivered', endJob: { id: a.job, workerId: 'w9' } },
    ]);
    const { rows } = await client.query<{ seq_scan: string; idx_scan: string }>(
      `SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname = 'jobs'`,
    );
    assert.equal(Number(rows[0].seq_scan), 0, 'the jobs table read in full');
    assert.ok(Number(rows[0].idx_scan) >= 1);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  assert.equal(await jobExists(a.job), false);
  assert.equal(await events(a.email), 1);
});

test('a session that first ended a job while the queue was nearly empty still ends each by its key once the queue is long', async () => {
  // A session keeps the generic plan it made at its first end. Made while jobs held a few rows (a
  // quiet moment, analyzed), the plan walked an index of the whole table for each end with the
  // JSON set rescanned (seq scans off did not forbid that): every later results statement then
  // read every queued job (bench/pg-results-ab.ts: 128 µs a statement with ~200 queued).
  await db.pool.query('DELETE FROM jobs');
  await db.pool.query('ANALYZE jobs');
  const client = await db.pool.connect();
  try {
    for (let i = 0; i < 6; i++) {
      // past the five custom plans PostgreSQL tries before it keeps a generic one
      const a = await emailWithJob();
      await db.pool.query(`UPDATE jobs SET locked_by = 'w8' WHERE id = $1`, [a.job]);
      await emailEventsInsertMany(client, [
        { events: [delivered(a.email)], lastEvent: 'delivered', endJob: { id: a.job, workerId: 'w8' } },
      ]);
      assert.equal(await jobExists(a.job), false);
    }
    await db.pool.query(
      `INSERT INTO jobs (kind, payload, run_at, locked_by) SELECT 'email.deliver', '{}'::jsonb, now(), 'w8' FROM generate_series(1, 3000)`,
    );
    const a = await emailWithJob();
    await db.pool.query(`UPDATE jobs SET locked_by = 'w8' WHERE id = $1`, [a.job]);
    await client.query('BEGIN');
    await emailEventsInsertMany(client, [
      { events: [delivered(a.email)], lastEvent: 'delivered', endJob: { id: a.job, workerId: 'w8' } },
    ]);
    const { rows } = await client.query<{ fetched: string }>(
      `SELECT idx_tup_fetch AS fetched FROM pg_stat_xact_user_tables WHERE relname = 'jobs'`,
    );
    await client.query('COMMIT');
    assert.ok(Number(rows[0].fetched) < 50, `the end fetched ${rows[0].fetched} rows of jobs to end one job`);
    assert.equal(await jobExists(a.job), false);
  } finally {
    client.release();
  }
});

// The hot paths' statements are prepared once per session (store/db.ts prepared, issue 27:
// re-planning them was about a quarter of PostgreSQL's CPU per delivered email), and planned no
// more once a generic plan is cached; through a transaction-mode pooler they stay unnamed (a
// statement prepared on one server connection is unknown on the next).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase } from '../helpers/db.js';
import { createPool } from '../../src/store/db.js';
import { jobsNextRunIn } from '../../src/store/jobs.js';
import { inboxesFindByFrom } from '../../src/store/inboxes.js';
import { uuid } from '../../src/lib/ids.js';
import { closeAll } from '../helpers/close-all.js';

const filter = { kinds: ['email.deliver'] };

test('a hot statement is prepared once per session and then runs a cached generic plan', async () => {
  const db = await freshDatabase();
  const pool = createPool(db.url, 1); // one session: every call below runs on it
  try {
    for (let i = 0; i < 10; i++) assert.equal(await jobsNextRunIn(pool, filter), undefined);
    const { rows } = await pool.query(
      "SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements WHERE name = 'mr_jobs_next_run_in'",
    );
    assert.equal(rows.length, 1, 'prepared under its name in the session');
    assert.ok(rows[0].generic_plans >= 1, `planned no more after the first calls: ${JSON.stringify(rows[0])}`);
    assert.ok(rows[0].custom_plans <= 5, JSON.stringify(rows[0]));
    // The answer is the same as unprepared: a due job is found.
    await pool.query(
      "INSERT INTO jobs (kind, payload, run_at) VALUES ('email.deliver', '{}', now() - interval '1 second')",
    );
    assert.equal(await jobsNextRunIn(pool, filter), 0);
    // A client checked out of the pool (a transaction) shares the session's statement.
    const c = await pool.connect();
    try {
      assert.equal(await jobsNextRunIn(c, filter), 0);
      const n = await c.query(
        "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = 'mr_jobs_next_run_in'",
      );
      assert.equal(n.rows[0].n, 1);
    } finally {
      c.release();
    }
  } finally {
    await closeAll(
      () => pool.end(),
      () => db.drop(),
    );
  }
});

test('the inbox lookup after every accept statement is prepared once per session (it was planned at every call)', async () => {
  const db = await freshDatabase();
  const pool = createPool(db.url, 1);
  try {
    const team = uuid();
    for (let i = 0; i < 10; i++) assert.deepEqual(await inboxesFindByFrom(pool, [team], ['a@example.com']), []);
    const { rows } = await pool.query(
      "SELECT generic_plans::int FROM pg_prepared_statements WHERE name = 'mr_inboxes_find_by_from'",
    );
    assert.equal(rows.length, 1, 'prepared under its name in the session');
    assert.ok(rows[0].generic_plans >= 1, JSON.stringify(rows[0]));
  } finally {
    await closeAll(
      () => pool.end(),
      () => db.drop(),
    );
  }
});

test('through a transaction-mode pooler (directUrl) the statements stay unnamed', async () => {
  const db = await freshDatabase();
  const pool = createPool(db.url, 1, { directUrl: db.url });
  try {
    for (let i = 0; i < 3; i++) assert.equal(await jobsNextRunIn(pool, filter), undefined);
    const c = await pool.connect();
    try {
      assert.equal(await jobsNextRunIn(c, filter), undefined);
      const { rows } = await c.query('SELECT count(*)::int AS n FROM pg_prepared_statements');
      assert.equal(rows[0].n, 0);
    } finally {
      c.release();
    }
  } finally {
    await closeAll(
      () => pool.end(),
      () => db.drop(),
    );
  }
});

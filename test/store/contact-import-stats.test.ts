// The staging table's statistics before a merge (store/contact-imports.ts contactImportRowsAnalyze).
// Statistics taken while the table held only another run's rows (a run killed mid-staging, then
// autovacuum) estimate the next run at ~1 row, and the merge's plan for ~1 row is a nested loop
// over the team's contacts that is quadratic in the rows it inserts (CI: a 60,000-row import still
// merging after 2 minutes). After the analyze the merge's source is estimated at its real size,
// and with the estimate right the merge completes a 30,000-row import and counts it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { withTx } from '../../src/store/db.js';
import { contactImportMerge, contactImportRowsAnalyze } from '../../src/store/contact-imports.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db?.drop();
});

const KILLED = '00000000-0000-0000-0000-00000000000a';
const RUN = '00000000-0000-0000-0000-00000000000b';
const ROWS = 30_000;

/** The planner's estimate of the merge's source: this run's staging rows. */
async function estimated(runId: string): Promise<number> {
  const { rows } = await db.pool.query<{ 'QUERY PLAN': { Plan: { 'Plan Rows': number } }[] }>(
    `EXPLAIN (FORMAT JSON) SELECT * FROM contact_import_rows WHERE run_id = '${runId}'::uuid`,
  );
  return rows[0]['QUERY PLAN'][0].Plan['Plan Rows'];
}

test('a run staged after statistics of another run is estimated at its size once analyzed, and merges', async () => {
  const { rows } = await db.pool.query<{ id: string }>(
    "INSERT INTO teams (id, name) VALUES (gen_random_uuid(), 'T') RETURNING id",
  );
  const team = rows[0].id;
  await db.pool.query(
    `INSERT INTO contact_import_rows SELECT $1, g, 'killed' || g || '@example.org', NULL, NULL, NULL, '{}' FROM generate_series(1, 5000) g`,
    [KILLED],
  );
  await db.pool.query('ANALYZE contact_import_rows'); // what autovacuum may do between the two runs
  await db.pool.query(
    `INSERT INTO contact_import_rows SELECT $1, g, 'user' || g || '@example.org', 'F', 'L', NULL, '{}' FROM generate_series(1, $2::int) g`,
    [RUN, ROWS],
  );
  assert.ok((await estimated(RUN)) < 100, 'the stale statistics estimate the new run at a few rows');

  await contactImportRowsAnalyze(db.pool);
  const est = await estimated(RUN);
  assert.ok(est > ROWS / 2 && est < ROWS * 2, `estimated ${est} of ${ROWS}`);

  const m = await withTx(db.pool, (tx) =>
    contactImportMerge(tx, { teamId: team, runId: RUN, upsert: false, segments: [], topics: [] }),
  );
  assert.deepEqual(m, { staged: ROWS, uniq: ROWS, created: ROWS, updated: 0 });
});

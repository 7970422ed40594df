// The pool's sessions never JIT-compile: PostgreSQL's LLVM compilation, triggered by cost estimates
// that grow with the tables, cost the delivery load seconds per claim on a large broadcast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase } from '../helpers/db.js';
import { createPool } from '../../src/store/db.js';
import { closeAll } from '../helpers/close-all.js';

test('the pool turns JIT off, even for a query estimated as expensive as can be', async () => {
  const db = await freshDatabase({ migrate: false });
  const pool = createPool(db.url, 2);
  try {
    assert.equal((await pool.query('SHOW jit')).rows[0].jit, 'off');
    const c = await pool.connect();
    try {
      await c.query('SET jit_above_cost = 0'); // every query would be compiled, were JIT on
      const plan = (await c.query('EXPLAIN (ANALYZE) SELECT sum(g) FROM generate_series(1, 1000) g')).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      assert.doesNotMatch(plan, /^JIT:/m, plan);
    } finally {
      c.release();
    }
    assert.equal((await pool.query('SHOW TimeZone')).rows[0].TimeZone, 'UTC');
  } finally {
    await closeAll(
      () => pool.end(),
      () => db.drop(),
    );
  }
});

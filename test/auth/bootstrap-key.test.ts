// Start-up writes are idempotent across processes: N processes starting together on one database
// each ensure the bootstrap key (issue 26: one of three processes started together exited 1 on a
// duplicate key). Eight processes' worth of ensure() race here, each on its own connection.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { apiKeyToken } from '../../src/lib/ids.js';
import { teamEnsureDefault } from '../../src/store/teams.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db?.drop();
});

test('eight processes ensuring the same bootstrap key at once make one key and none fails', async () => {
  for (let round = 0; round < 5; round++) {
    const token = apiKeyToken();
    const pools = Array.from({ length: 8 }, () => new pg.Pool({ connectionString: db.url, max: 1 }));
    try {
      const results = await Promise.allSettled(
        pools.map(async (p) => new ApiKeys(p).ensure((await teamEnsureDefault(p)).id, token, 'Bootstrap')),
      );
      const failed = results
        .filter((r) => r.status === 'rejected')
        .map((r) => String((r as PromiseRejectedResult).reason));
      assert.deepEqual(failed, [], `round ${round}`);
      assert.equal(
        results.filter((r) => (r as PromiseFulfilledResult<boolean>).value === true).length,
        1,
        'one created it',
      );
    } finally {
      await Promise.all(pools.map((p) => p.end()));
    }
  }
  const { rows } = await db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM api_keys WHERE name = 'Bootstrap'",
  );
  assert.equal(rows[0].n, 5);
});

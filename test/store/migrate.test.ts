import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase } from '../helpers/db.js';
import { migrate, listMigrations } from '../../src/store/migrate.js';

test('migrations apply once, in order, even when two processes race', async () => {
  const db = await freshDatabase({ migrate: false });
  try {
    const [a, b] = await Promise.all([migrate(db.pool), migrate(db.pool)]);
    const all = listMigrations().map((m) => m.version);
    assert.deepEqual(
      [...a, ...b].sort((x, y) => x - y),
      all,
    ); // numeric: 10 sorts after 7
    assert.deepEqual(await migrate(db.pool), []);
    const { rows } = await db.pool.query('SELECT version FROM schema_migrations ORDER BY version');
    assert.deepEqual(
      rows.map((r) => r.version),
      all,
    );
  } finally {
    await db.drop();
  }
});

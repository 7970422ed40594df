// Applies the numbered plain-SQL files in migrations/ in order, each in its own transaction,
// under an advisory lock so that several processes starting together migrate once.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { sessionConfig } from './db.js';

const MIGRATION_LOCK = 7_317_001; // arbitrary, constant advisory-lock key for migrations
export const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export function listMigrations(dir = MIGRATIONS_DIR): { version: number; name: string; file: string }[] {
  return fs
    .readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f.slice(5, -4), file: path.join(dir, f) }));
}

/** Returns the versions applied by this call. */
export async function migrate(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<number[]> {
  // The advisory lock is held across statements: a session of its own, never through a
  // transaction-mode pooler (its unlock could run on another server connection, leaving it held).
  const client = new pg.Client(sessionConfig(pool));
  client.on('error', () => undefined);
  await client.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(rows.map((r) => r.version));
    for (const m of listMigrations(dir)) {
      if (done.has(m.version)) continue;
      const sql = fs.readFileSync(m.file, 'utf8');
      await client.query('BEGIN');
      try {
        await client.query(sql);
        await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
        await client.query('COMMIT');
        applied.push(m.version);
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.version}_${m.name} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
  return applied;
}

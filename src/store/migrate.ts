// Applies the numbered plain-SQL files in migrations/ in order, each in its own transaction,
// under an advisory lock so that several processes starting together migrate once (the others
// wait on the lock, then find nothing left to do). A process whose code is older than the
// database (a version applied that this code has no file for: a newer release migrated it)
// refuses to touch it: its queries may not fit the schema, and a rolling upgrade must not be
// undone by the old processes still running. `checkSchema` is the same comparison without
// migrating, for `mailroom start --no-migrate`.
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

type Migration = ReturnType<typeof listMigrations>[number];
const label = (v: { version: number; name: string }) => `${String(v.version).padStart(4, '0')}_${v.name}`;

/** The database and this code disagree: the message names both sides (`mailroom` prints it as is). */
export class SchemaMismatch extends Error {}

/** The database's applied migrations ([] when it has none, not even the table). */
async function appliedVersions(db: pg.Pool | pg.PoolClient | pg.Client): Promise<{ version: number; name: string }[]> {
  const { rows } = await db
    .query<{ version: number; name: string }>(`SELECT version, name FROM schema_migrations ORDER BY version`)
    .catch((err: { code?: string }) => {
      if (err.code === '42P01') return { rows: [] }; // no table: an empty database
      throw err;
    });
  return rows;
}

function newerThanCode(applied: { version: number; name: string }[], known: Migration[]): SchemaMismatch | undefined {
  const versions = new Set(known.map((m) => m.version));
  const unknown = applied.filter((a) => !versions.has(a.version));
  if (!unknown.length) return undefined;
  const latest = known.at(-1);
  return new SchemaMismatch(
    `the database schema is newer than this Mailroom: it is at migration ${label(applied.at(-1)!)}, ` +
      `and this code knows migrations up to ${latest ? label(latest) : '(none)'}; ` +
      `it has ${unknown.map(label).join(', ')}, which this code does not know. ` +
      'Run the Mailroom release that migrated it (or a newer one); an older one must not run on this database.',
  );
}

/**
 * Without migrating: refuses (SchemaMismatch) a database newer than this code, and one that has
 * migrations of this code still to apply, naming them.
 */
export async function checkSchema(pool: pg.Pool, dir = MIGRATIONS_DIR): Promise<void> {
  const known = listMigrations(dir);
  const applied = await appliedVersions(pool);
  const newer = newerThanCode(applied, known);
  if (newer) throw newer;
  const done = new Set(applied.map((a) => a.version));
  const pending = known.filter((m) => !done.has(m.version));
  if (pending.length)
    throw new SchemaMismatch(
      `the database has ${pending.length} migration(s) of this Mailroom still to apply: ${pending.map(label).join(', ')} ` +
        `(the database is at ${applied.length ? label(applied.at(-1)!) : 'no migration'}). ` +
        'Run `npx mailroom migrate` first, or start without --no-migrate.',
    );
}

/** Returns the versions applied by this call; refuses (SchemaMismatch) a database newer than this code. */
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
    const known = listMigrations(dir);
    const rows = await appliedVersions(client);
    const newer = newerThanCode(rows, known);
    if (newer) throw newer;
    const done = new Set(rows.map((r) => r.version));
    for (const m of known) {
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

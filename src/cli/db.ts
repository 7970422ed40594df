// Opens the configured database for one-shot commands: the URL's, else the embedded PostgreSQL of
// a Mailroom running on the same data directory, else an embedded one started for the command.
// A database that cannot be opened becomes one sentence saying where and why.
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createLogger } from '../lib/log.js';
import { openDatabase, type Database } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { teamEnsureDefault } from '../store/teams.js';
import { explainError } from './errors.js';

export async function openCliDatabase(config: Config, poolSize = 1): Promise<Database> {
  let db: Database | undefined;
  try {
    db = await openDatabase({
      url: config.databaseUrl,
      directUrl: config.databaseDirectUrl,
      dataDir: config.dataDir,
      log: createLogger('warn'),
      poolSize,
      shareRunning: true,
    });
    await db.pool.query('SELECT 1'); // a URL is only tried here
    return db;
  } catch (err) {
    await db?.close().catch(() => undefined);
    throw new Error(explainError(err, config.databaseUrl));
  }
}

export async function withDatabase<T>(
  fn: (db: Database, ctx: { config: Config; defaultTeamId: string }) => Promise<T>,
): Promise<T> {
  const config = loadConfig();
  const db = await openCliDatabase(config, 2);
  try {
    await migrate(db.pool);
    const team = await teamEnsureDefault(db.pool);
    return await fn(db, { config, defaultTeamId: team.id });
  } finally {
    await db.close();
  }
}

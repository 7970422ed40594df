// Opens the configured database (embedded or URL), migrated, for one-shot commands.
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { createLogger } from '../lib/log.js';
import { openDatabase, type Database } from '../store/db.js';
import { migrate } from '../store/migrate.js';
import { teamEnsureDefault } from '../store/teams.js';

export async function withDatabase<T>(fn: (db: Database, ctx: { config: Config; defaultTeamId: string }) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, log: createLogger('warn'), poolSize: 2 });
  try {
    await migrate(db.pool);
    const team = await teamEnsureDefault(db.pool);
    return await fn(db, { config, defaultTeamId: team.id });
  } finally {
    await db.close();
  }
}

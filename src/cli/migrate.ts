// `mailroom migrate`: applies pending migrations and exits.
import { loadConfig } from '../config/load.js';
import { createLogger } from '../lib/log.js';
import { openDatabase } from '../store/db.js';
import { migrate } from '../store/migrate.js';

export async function cmdMigrate(): Promise<number> {
  const config = loadConfig();
  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir, log: createLogger('warn'), poolSize: 1 });
  try {
    const applied = await migrate(db.pool);
    process.stdout.write(applied.length ? `Applied migrations: ${applied.join(', ')}\n` : 'Database is up to date.\n');
    return 0;
  } finally {
    await db.close();
  }
}

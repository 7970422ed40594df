// `mailroom migrate`: applies pending migrations and exits.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.js';
import { migrate } from '../store/migrate.js';
import { openCliDatabase } from './db.js';

export async function cmdMigrate(argv: string[]): Promise<number> {
  parseArgs({ args: argv, options: {} }); // no arguments: anything else is a usage error
  const db = await openCliDatabase(loadConfig());
  try {
    const applied = await migrate(db.pool);
    process.stdout.write(applied.length ? `Applied migrations: ${applied.join(', ')}\n` : 'Database is up to date.\n');
    return 0;
  } finally {
    await db.close();
  }
}

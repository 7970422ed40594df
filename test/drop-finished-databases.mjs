// Run by `npm test` after the test files: drops the databases they finished with on the server at
// MAILROOM_TEST_DATABASE_URL (test/helpers/db.ts renames each instead of dropping it then, since
// every DROP DATABASE makes PostgreSQL checkpoint) and the migrated templates they were copied
// from, leaving the server as the run found it. Four at a time: drops in flight share a checkpoint.
// A database that cannot be dropped is named in a warning; the run's result is not changed.
import pg from 'pg';

const FINISHED = 'mailroom_test_finished_';
const TEMPLATE = 'mailroom_test_template_';
const url = process.env.MAILROOM_TEST_DATABASE_URL;

async function query(sql, params) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await c.query(sql, params);
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function drop(name) {
  try {
    await query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  } catch {
    await query(`DROP DATABASE IF EXISTS "${name}"`).catch((e) =>
      process.stderr.write(`warning: test database ${name} was left behind: ${e.message}\n`),
    );
  }
}

if (url) {
  const { rows } = await query(
    `SELECT datname FROM pg_database WHERE starts_with(datname, $1) OR starts_with(datname, $2) ORDER BY datname`,
    [FINISHED, TEMPLATE],
  );
  const names = rows.map((r) => r.datname);
  const workers = Array.from({ length: 4 }, async () => {
    for (let n = names.shift(); n !== undefined; n = names.shift()) await drop(n);
  });
  await Promise.all(workers);
}

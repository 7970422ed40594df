// Every process on one database must share MAILROOM_SECRET_KEY (issue 26): the DKIM keys and
// webhook secrets are sealed with it. A `mailroom start` with another key refuses, saying why,
// before it writes anything sealed; the same key starts; processes starting together agree on
// one recorded check.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMailroomAsync } from '../helpers/cli.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { closeAll } from '../helpers/close-all.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { Sealer } from '../../src/lib/crypto.js';
import { instanceSettingEnsure, secretKeyMatches } from '../../src/store/instance-settings.js';

describe('one secret key per database', () => {
  let db: TestDatabase;
  let t: TestApp;
  const dirs: string[] = [];
  before(async () => {
    db = await freshDatabase();
    t = await startTestApp({ secretKey: 'the-first-key' }, { db });
  });
  after(() =>
    closeAll(
      () => t?.close(),
      () => db?.drop(),
      ...dirs.map((d) => () => fs.rmSync(d, { recursive: true, force: true })),
    ),
  );

  const start = (key: string) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-keycheck-'));
    dirs.push(dataDir);
    return runMailroomAsync(['start'], {
      MAILROOM_DATABASE_URL: db.url,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_SECRET_KEY: key,
      MAILROOM_ROLES: 'worker',
      MAILROOM_MX_HOST: 'mx.mailroom.test',
      MAILROOM_LOG_LEVEL: 'warn',
    });
  };

  test('a process with another key refuses to start and names the setting', async () => {
    const r = await start('another-key');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /MAILROOM_SECRET_KEY is not the key this database was first started with/);
    // The running app still reads its sealed secrets, and a second process with the same key starts.
    assert.equal(await secretKeyMatches(db.pool, new Sealer('the-first-key')), true);
    assert.equal(await secretKeyMatches(db.pool, new Sealer('another-key')), false);
    const same = await startTestApp({ secretKey: 'the-first-key' }, { db });
    await same.close();
  });

  test('a key generated into a new data directory is another key, refused the same way', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-keycheck-'));
    dirs.push(dataDir);
    const r = await runMailroomAsync(['start'], {
      MAILROOM_DATABASE_URL: db.url,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_ROLES: 'worker',
      MAILROOM_MX_HOST: 'mx.mailroom.test',
    });
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /Set the same MAILROOM_SECRET_KEY on every process/);
  });

  test('processes recording the check at once agree on one value', async () => {
    await db.pool.query("DELETE FROM instance_settings WHERE name = 'race'");
    const values = await Promise.all(
      Array.from({ length: 8 }, (_, i) => instanceSettingEnsure(db.pool, 'race', `value-${i}`)),
    );
    assert.equal(new Set(values).size, 1, values.join());
    const { rows } = await db.pool.query("SELECT value FROM instance_settings WHERE name = 'race'");
    assert.deepEqual(
      rows.map((r) => r.value),
      [values[0]],
    );
  });
});

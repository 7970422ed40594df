// `mailroom oauth-clients create|list|delete` against a real database: the secret printed once
// (only its hash stored), public clients without one, usage errors before the database (exit 2),
// an unknown ID a one-sentence failure (exit 1), and a client registered here is one the server's
// GET /oauth/authorize accepts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startTestApp } from '../helpers/harness.js';
import { runMailroom as run } from '../helpers/cli.js';
import { sha256Hex } from '../../src/lib/ids.js';
import { closeAll } from '../helpers/close-all.js';

describe('mailroom oauth-clients', () => {
  let db: TestDatabase;
  let env: Record<string, string>;
  let dataDir: string;
  before(async () => {
    db = await freshDatabase();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-cli-'));
    env = { MAILROOM_DATABASE_URL: db.url, MAILROOM_DATA_DIR: dataDir };
  });
  after(async () => {
    await closeAll(
      () => db.drop(),
      () => fs.rmSync(dataDir, { recursive: true, force: true }),
    );
  });

  test('create prints the client_id and the secret once; list shows it; delete removes it', async () => {
    const c = run(
      [
        'oauth-clients',
        'create',
        '--name',
        'Acme CRM',
        '--redirect-uri',
        'https://acme.example/cb',
        '--redirect-uri',
        'http://localhost:8080/cb',
      ],
      env,
    );
    assert.equal(c.status, 0, c.stderr);
    const id = /^client_id:\s+(\S+)$/m.exec(c.stdout)![1];
    const secret = /^client_secret:\s+(\S+)$/m.exec(c.stdout)![1];
    const { rows } = await db.pool.query('SELECT secret_hash, redirect_uris FROM oauth_clients WHERE id = $1', [id]);
    assert.equal(rows[0].secret_hash, sha256Hex(secret));
    assert.deepEqual(rows[0].redirect_uris, ['https://acme.example/cb', 'http://localhost:8080/cb']);
    const pub = run(
      ['oauth-clients', 'create', '--name', 'CLI tool', '--redirect-uri', 'http://127.0.0.1:7777/cb', '--public'],
      env,
    );
    assert.equal(pub.status, 0, pub.stderr);
    assert.doesNotMatch(pub.stdout, /client_secret/);
    const list = run(['oauth-clients', 'list'], env);
    assert.match(
      list.stdout,
      new RegExp(`^${id}  Acme CRM  confidential  https://acme.example/cb http://localhost:8080/cb`, 'm'),
    );
    assert.match(list.stdout, /CLI tool {2}public/);
    assert.ok(!list.stdout.includes(secret));

    // The server accepts an authorization request for it.
    const t = await startTestApp({}, { db });
    try {
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: id,
        redirect_uri: 'https://acme.example/cb',
        scope: 'full_access',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      });
      const r = await fetch(`${t.url}/oauth/authorize?${q}`, { redirect: 'manual' });
      assert.equal(r.status, 302);
      assert.match(r.headers.get('location')!, /^\/dashboard\/oauth\/authorize\?/);
    } finally {
      await t.close();
    }

    assert.equal(run(['oauth-clients', 'delete', id], env).status, 0);
    assert.ok(!run(['oauth-clients', 'list'], env).stdout.includes(id));
    const again = run(['oauth-clients', 'delete', id], env);
    assert.equal(again.status, 1);
    assert.equal(
      again.stderr,
      `mailroom oauth-clients: no OAuth client ${id} (see \`npx mailroom oauth-clients list\`).\n`,
    );
  });

  test('usage errors exit 2 with the usage, before the database', () => {
    const nowhere = { MAILROOM_DATABASE_URL: 'postgres://mailroom@127.0.0.1:1/mailroom', MAILROOM_DATA_DIR: dataDir };
    const cases: [string[], RegExp][] = [
      [['oauth-clients', 'create', '--name', 'x'], /at least one --redirect-uri/],
      [['oauth-clients', 'create', '--redirect-uri', 'https://a.example/cb'], /needs --name/],
      [['oauth-clients', 'create', '--name', 'x', '--redirect-uri', 'http://a.example/cb'], /must be https/],
      [['oauth-clients', 'create', '--name', 'x', '--redirect-uri', 'https://a.example/cb#frag'], /fragment/],
      [['oauth-clients', 'delete', 'nope'], /is a UUID/],
      [['oauth-clients', 'list', '--name', 'x'], /go with create/],
      [['oauth-clients', 'rotate'], /unknown subcommand/],
    ];
    for (const [args, message] of cases) {
      const r = run(args, nowhere);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.match(r.stderr, /Usage: npx mailroom oauth-clients create/);
    }
    const help = run(['oauth-clients', '--help'], nowhere);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: npx mailroom oauth-clients create/);
  });
});

// One-shot commands while `mailroom start` runs on the embedded PostgreSQL of the same data
// directory: they use that server's database (its port from postmaster.pid, its password from the
// file beside it) and never stop it; a second `start` on the directory refuses in one sentence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMailroom as run, mailroomEntry } from '../helpers/cli.js';
import { ROOT } from '../helpers/root.js';
import { sleep } from '../../src/lib/time.js';

test('while start runs on the embedded PostgreSQL, doctor, teams, api-keys and migrate use its database, and a second start refuses', {
  timeout: 170_000,
}, async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-shared-'));
  fs.chmodSync(dataDir, 0o755);
  const env = {
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
    MAILROOM_SMTP_LISTEN: '127.0.0.1:0:starttls',
    MAILROOM_MX_LISTEN: '127.0.0.1:0',
    MAILROOM_MX_HOST: 'mx.mailroom.test',
    MAILROOM_DNS_SERVERS: '127.0.0.1:9',
  };
  const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env, MAILROOM_BOOTSTRAP_API_KEY: 're_shared_test_key' },
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    let url: string | undefined;
    for (let i = 0; i < 900 && !url && child.exitCode === null; i++) {
      url = /"http listening","url":"([^"]+)"/.exec(out)?.[1];
      if (!url) await sleep(100);
    }
    assert.ok(url, `server did not start:\n${out}`);
    const postmaster = () =>
      Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const pgPid = postmaster();

    const doctor = run(['doctor'], env);
    assert.match(
      doctor.stdout,
      new RegExp(
        `^ok\\s+database: PostgreSQL \\S+ \\(embedded, that of the running Mailroom, process ${child.pid}\\); 0 migration\\(s\\) pending$`,
        'm',
      ),
      doctor.stdout + doctor.stderr,
    );
    const teams = run(['teams', 'list'], env);
    assert.equal(teams.status, 0, teams.stderr);
    assert.match(teams.stdout, /^\S+ {2}Default \(default\)/m);
    const created = run(['api-keys', 'create', '--name', 'made-while-running'], env);
    assert.equal(created.status, 0, created.stderr);
    const token = /token: (re_\S+)/.exec(created.stdout)![1];
    assert.equal(
      (await fetch(`${url}/domains`, { headers: { authorization: `Bearer ${token}` } })).status,
      200,
      'the running server knows the new key',
    );
    assert.match(run(['api-keys', 'list'], env).stdout, /made-while-running/);
    assert.match(run(['migrate'], env).stdout, /^Database is up to date\.$/m);

    const second = run(['start'], { ...env, MAILROOM_ROLES: 'api' });
    assert.equal(second.status, 1);
    assert.match(
      second.stderr,
      new RegExp(
        `^mailroom start: The embedded PostgreSQL in \\S+ belongs to a Mailroom that is running \\(process ${child.pid}\\)\\.`,
        'm',
      ),
    );

    assert.equal(postmaster(), pgPid, 'the server kept its own PostgreSQL');
    assert.equal((await fetch(`${url}/ready`)).status, 200, 'and is still ready');
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
  } finally {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
      try {
        process.kill(
          Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]),
          'SIGQUIT',
        );
      } catch {
        /* none left */
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});

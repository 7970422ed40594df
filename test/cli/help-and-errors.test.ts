// The CLI's answers that need no database: `--help` of every command (answered before the
// configuration or the database is touched), usage errors, and one-sentence failures when the
// database cannot be reached or a setting is invalid: never a stack trace, always a non-zero exit.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMailroom as run } from '../helpers/cli.js';

describe('help and error paths, with no database to reach', () => {
  // A database that does not answer and a setting that does not parse: --help must touch neither.
  const nowhere = { MAILROOM_DATABASE_URL: 'postgres://mailroom@127.0.0.1:1/mailroom', MAILROOM_DATA_DIR: path.join(os.tmpdir(), `mailroom-never-${process.pid}`) };
  const noStack = (text: string) => assert.doesNotMatch(text, /^\s+at |TypeError|Error:/m, text);

  test('every command answers --help at once, with its own usage, without the configuration or the database', () => {
    const cases: [string[], RegExp][] = [
      [['start', '--help'], /^Usage: mailroom start /], [['migrate', '--help'], /^Usage: mailroom migrate/], [['config', '--help'], /^Usage: mailroom config/],
      [['doctor', '--help'], /^Usage: mailroom doctor/], [['teams', '--help'], /^Usage: mailroom teams create NAME/], [['teams', 'create', '-h'], /^Usage: mailroom teams/],
      [['api-keys', '--help'], /^Usage: mailroom api-keys create/], [['api-keys', 'create', '--help'], /^Usage: mailroom api-keys create/], [['api-keys', 'delete', 'x', '--help'], /^Usage: mailroom api-keys/],
      [['help', 'doctor'], /^Usage: mailroom doctor/], [['--help'], /^Usage: mailroom <command>/],
    ];
    for (const [args, usage] of cases) {
      const started = Date.now();
      const r = run(args, { ...nowhere, MAILROOM_RATE_LIMIT: 'not-a-number' });
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stdout, usage, args.join(' '));
      assert.equal(r.stderr, '', args.join(' '));
      assert.ok(Date.now() - started < 30_000, `${args.join(' ')} took ${Date.now() - started} ms`);
    }
    assert.ok(!fs.existsSync(nowhere.MAILROOM_DATA_DIR), 'no data directory was created');
  });

  test('commands that need the database say in one sentence that it cannot be reached, and exit 1', () => {
    for (const args of [['teams', 'list'], ['api-keys', 'list'], ['migrate']]) {
      const r = run(args, nowhere);
      assert.equal(r.status, 1, args.join(' '));
      assert.equal(r.stdout, '');
      assert.match(r.stderr, new RegExp(`^mailroom ${args[0]}: Cannot reach PostgreSQL at 127\\.0\\.0\\.1:1 \\(MAILROOM_DATABASE_URL\\): .*Is it running\\?\\n$`), args.join(' '));
      noStack(r.stderr);
    }
    const doctor = run(['doctor'], { ...nowhere, MAILROOM_HTTP_LISTEN: '127.0.0.1:0', MAILROOM_SMTP_LISTEN: '127.0.0.1:0:starttls', MAILROOM_MX_LISTEN: '127.0.0.1:0', MAILROOM_DNS_SERVERS: '127.0.0.1:9' });
    assert.equal(doctor.status, 1);
    assert.match(doctor.stdout, /^FAIL\s+database: Cannot reach PostgreSQL at 127\.0\.0\.1:1/m);
    noStack(doctor.stdout + doctor.stderr);
  });

  test('a wrong command, subcommand or option is named, with the usage, and exits non-zero before anything is opened', () => {
    const cases: [string[], number, RegExp][] = [
      [['frob'], 1, /^Unknown command "frob"/], [['teams'], 2, /^mailroom teams: say create NAME or list\./], [['teams', 'create'], 2, /^mailroom teams: the new team needs a NAME\./],
      [['api-keys', 'frob'], 2, /^mailroom api-keys: unknown subcommand "frob"\./], [['api-keys', 'delete'], 2, /^mailroom api-keys: delete needs the ID/],
      [['api-keys', 'create', '--permission', 'root'], 2, /^mailroom api-keys: --permission must be full_access or sending_access\./],
      [['api-keys', 'list', '--bogus'], 2, /^mailroom api-keys: Unknown option '--bogus'/], [['doctor', 'extra'], 2, /^mailroom doctor: Unexpected argument 'extra'/],
      [['start', '--rolez', 'api'], 2, /^mailroom start: Unknown option '--rolez'/],
    ];
    for (const [args, status, message] of cases) {
      const r = run(args, nowhere);
      assert.equal(r.status, status, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.match(r.stderr, /Usage: mailroom/, args.join(' '));
      noStack(r.stderr.split('Usage:')[0]);
    }
    assert.ok(!fs.existsSync(nowhere.MAILROOM_DATA_DIR));
  });

  test('an invalid setting is named by every command that loads the configuration, exit 2', () => {
    for (const args of [['config'], ['teams', 'list'], ['doctor']]) {
      const r = run(args, { ...nowhere, MAILROOM_DELIVERY_MODE: 'pigeon' });
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, /^Invalid configuration:\n {2}MAILROOM_DELIVERY_MODE: /);
      noStack(r.stderr);
    }
  });
});

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
  const nowhere = {
    MAILROOM_DATABASE_URL: 'postgres://mailroom@127.0.0.1:1/mailroom',
    MAILROOM_DATA_DIR: path.join(os.tmpdir(), `mailroom-never-${process.pid}`),
  };
  const noStack = (text: string) => assert.doesNotMatch(text, /^\s+at |TypeError|Error:/m, text);

  test('every command answers --help at once, with its own usage, without the configuration or the database', () => {
    const cases: [string[], RegExp][] = [
      [['start', '--help'], /^Usage: npx mailroom start /],
      [['migrate', '--help'], /^Usage: npx mailroom migrate/],
      [['config', '--help'], /^Usage: npx mailroom config/],
      [['doctor', '--help'], /^Usage: npx mailroom doctor/],
      [['teams', '--help'], /^Usage: npx mailroom teams create NAME/],
      [['teams', 'create', '-h'], /^Usage: npx mailroom teams/],
      [['api-keys', '--help'], /^Usage: npx mailroom api-keys create/],
      [['api-keys', 'create', '--help'], /^Usage: npx mailroom api-keys create/],
      [['api-keys', 'delete', 'x', '--help'], /^Usage: npx mailroom api-keys/],
      [['help', 'doctor'], /^Usage: npx mailroom doctor/],
      [['--help'], /^Usage: npx mailroom <command>/],
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
      assert.match(
        r.stderr,
        new RegExp(
          `^mailroom ${args[0]}: Cannot reach PostgreSQL at 127\\.0\\.0\\.1:1 \\(MAILROOM_DATABASE_URL\\): .*Is it running\\?\\n$`,
        ),
        args.join(' '),
      );
      noStack(r.stderr);
    }
    const doctor = run(['doctor'], {
      ...nowhere,
      MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
      MAILROOM_SMTP_LISTEN: '127.0.0.1:0:starttls',
      MAILROOM_MX_LISTEN: '127.0.0.1:0',
      MAILROOM_DNS_SERVERS: '127.0.0.1:9',
    });
    assert.equal(doctor.status, 1);
    assert.match(doctor.stdout, /^FAIL\s+database: Cannot reach PostgreSQL at 127\.0\.0\.1:1/m);
    noStack(doctor.stdout + doctor.stderr);
  });

  test('a wrong command, subcommand or option is named, with the usage, and exits non-zero before anything is opened', () => {
    const cases: [string[], number, RegExp][] = [
      [['frob'], 2, /^mailroom: unknown command "frob"\.$/m],
      [['teams'], 2, /^mailroom teams: say create NAME or list\./],
      [['teams', 'create'], 2, /^mailroom teams: the new team needs a NAME\./],
      [['api-keys', 'frob'], 2, /^mailroom api-keys: unknown subcommand "frob"\./],
      [['api-keys', 'delete'], 2, /^mailroom api-keys: delete needs the ID/],
      [
        ['api-keys', 'create', '--permission', 'root'],
        2,
        /^mailroom api-keys: --permission must be full_access or sending_access\./,
      ],
      [['api-keys', 'list', '--bogus'], 2, /^mailroom api-keys: Unknown option '--bogus'\.$/m],
      [['doctor', 'extra'], 2, /^mailroom doctor: Unexpected argument 'extra'/],
      [['start', '--rolez', 'api'], 2, /^mailroom start: Unknown option '--rolez'\.$/m],
    ];
    for (const [args, status, message] of cases) {
      const r = run(args, nowhere);
      assert.equal(r.status, status, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.match(r.stderr, /Usage: npx mailroom/, args.join(' '));
      noStack(r.stderr.split('Usage:')[0]);
    }
    assert.ok(!fs.existsSync(nowhere.MAILROOM_DATA_DIR));
  });

  test('a malformed ID, a missing value, a stray argument or option: one line naming it, the usage, exit 2, before the database', () => {
    const uuid = '6f1c2a4e-0d3b-4a57-9c1e-2b7d8e9f0a11';
    const cases: [string[], RegExp][] = [
      [
        ['api-keys', 'list', '--team', 'acme'],
        /^mailroom api-keys: --team must be a team's id \(a UUID, see `npx mailroom teams list`\), got "acme"\.$/,
      ],
      [
        ['api-keys', 'delete', 'nope'],
        /^mailroom api-keys: the ID of a key is a UUID \(see `npx mailroom api-keys list`\), got "nope"\.$/,
      ],
      [
        ['api-keys', 'create', '--permission', 'sending_access', '--domain-id', 'example.com'],
        /^mailroom api-keys: --domain-id must be a domain's id \(a UUID\), got "example\.com"\.$/,
      ],
      [
        ['api-keys', 'create', '--domain-id', uuid],
        /^mailroom api-keys: --domain-id restricts a sending key: add --permission sending_access\.$/,
      ],
      [['api-keys', 'create', '--name'], /^mailroom api-keys: Option '--name <value>' argument missing\.?$/],
      [['api-keys', 'create', '--name', ''], /^mailroom api-keys: --name must not be empty\.$/],
      [['api-keys', 'list', 'extra'], /^mailroom api-keys: unexpected argument "extra"\.$/],
      [['api-keys', 'delete', uuid, 'extra'], /^mailroom api-keys: unexpected argument "extra"\.$/],
      [['teams', 'create', '--bogus'], /^mailroom teams: Unknown option '--bogus'\.$/],
      [['teams', 'list', '--team', uuid], /^mailroom teams: Unknown option '--team'\.$/],
      [['migrate', 'extra'], /^mailroom migrate: Unexpected argument 'extra'\.$/],
      [['help', 'frob'], /^mailroom: unknown command "frob"\.$/],
      [[], /^mailroom: say which command\.$/],
    ];
    for (const [args, message] of cases) {
      const r = run(args, nowhere);
      assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '', args.join(' '));
      const [first, blank, usage] = r.stderr.split('\n');
      assert.match(first, message, args.join(' '));
      assert.equal(blank, '', args.join(' '));
      assert.match(usage, /^Usage: /, args.join(' '));
      noStack(first);
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

// Through a connection pooler: PgBouncer in transaction mode in front of PostgreSQL, Mailroom's API
// and SMTP roles (and the worker's queries) on it via MAILROOM_DATABASE_URL, and what needs a
// session (migrations' advisory lock, the workers' LISTEN) on MAILROOM_DATABASE_DIRECT_URL. Email
// sent through the API and through SMTP submission is delivered by a worker; timestamps stay UTC
// although the server's own TimeZone is not (the pooler refuses the `options` startup parameter
// that sets it on direct connections). PgBouncer and PostgreSQL are the test's own, on loopback.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Resend } from 'resend';
import { startPrivatePostgres, freePort, type PrivatePostgres } from '../helpers/private-postgres.js';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.js';
import { startMailroomProc, type MailroomProc } from '../helpers/mailroom-process.js';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { startRecordingSmtp, type RecordingSmtp } from '../helpers/recording-smtp.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { RawSmtp, queuedId } from '../helpers/smtp-submit.js';
import { closeAll } from '../helpers/close-all.js';
import { until } from '../helpers/until.js';

const KEY = 're_pgbounce_pgbouncerpgbouncerpgbounc00';

describe('through PgBouncer in transaction mode', () => {
  let pgs: PrivatePostgres;
  let bouncer: PgBouncer;
  let dns: FakeDns;
  let mx: RecordingSmtp;
  let front: MailroomProc; // api, smtp
  let worker: MailroomProc;
  let smtpPort: number;
  const dirs: string[] = [];
  const dataDir = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-pgbouncer-'));
    dirs.push(d);
    return d;
  };

  before(async () => {
    // Not UTC: what Mailroom's sessions see through the pooler must still be.
    pgs = await startPrivatePostgres({ TimeZone: 'America/New_York' });
    const admin = new pg.Client({ connectionString: pgs.url });
    await admin.connect();
    await admin.query('CREATE DATABASE mailroom');
    await admin.end();
    bouncer = await startPgBouncer({ port: pgs.port, database: 'mailroom' });
    dns = await startFakeDns();
    mx = await startRecordingSmtp();
    dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
    dns.set('dest.test', 'MX', [{ exchange: 'mx1.dest.test', priority: 10 }]);
    dns.set('mx1.dest.test', 'A', ['127.0.0.1']);
    smtpPort = await freePort();
    const env = {
      MAILROOM_DATABASE_URL: bouncer.url,
      MAILROOM_DATABASE_DIRECT_URL: pgs.urlOf('mailroom'),
      MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
      MAILROOM_SMTP_LISTEN: `127.0.0.1:${smtpPort}:starttls`,
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_OUTBOUND_PORT: String(mx.port),
      MAILROOM_MX_HOST: 'mx.mailroom.test',
      MAILROOM_BOOTSTRAP_API_KEY: KEY,
      MAILROOM_SECRET_KEY: 'pgbouncer-test-secret',
      MAILROOM_RATE_LIMIT: '100000', // ten sends in a row: the default 10/s refused one in CI
    };
    front = await startMailroomProc({ ...env, MAILROOM_ROLES: 'api,smtp', MAILROOM_DATA_DIR: dataDir() });
    worker = await startMailroomProc({ ...env, MAILROOM_ROLES: 'worker', MAILROOM_DATA_DIR: dataDir() });
  });

  after(async () => {
    await closeAll(
      () => front?.stop(),
      () => worker?.stop(),
      () => bouncer?.stop(),
      () => mx?.close(),
      () => dns?.close(),
      () => pgs?.destroy(),
      () => {
        for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      },
    );
  });

  test('API and SMTP submission through the pooler, delivered by a worker; LISTEN and migrations direct', async () => {
    const resend = new Resend(KEY, { baseUrl: front.url! });
    const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    const dom = await (
      await fetch(`${front.url}/domains`, { method: 'POST', headers, body: JSON.stringify({ name: 'example.com' }) })
    ).json();
    publishRecords(dns, 'example.com', dom.records as WireRecord[]);
    await fetch(`${front.url}/domains/${dom.id}/verify`, { method: 'POST', headers });
    await until(
      'the domain to verify',
      async () => (await (await fetch(`${front.url}/domains/${dom.id}`, { headers })).json()).status === 'verified',
      20_000,
    );

    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const { data, error } = await resend.emails.send({
        from: 'api@example.com',
        to: `api${i}@dest.test`,
        subject: 'through the pooler',
        text: 'x',
      });
      assert.equal(error, null);
      ids.push(data!.id);
    }
    for (let i = 0; i < 3; i++) {
      const c = await RawSmtp.connect({ host: '127.0.0.1', port: smtpPort, security: 'starttls' });
      try {
        assert.match(await c.reply(), /^220/);
        await c.cmd('EHLO test.local');
        assert.match(await c.cmd('STARTTLS'), /^220/);
        await c.starttls();
        await c.cmd('EHLO test.local');
        assert.match(await c.login(KEY), /^235/);
        assert.match(await c.cmd('MAIL FROM:<smtp@example.com>'), /^250/);
        assert.match(await c.cmd(`RCPT TO:<smtp${i}@dest.test>`), /^250/);
        assert.match(await c.cmd('DATA'), /^354/);
        const r = await c.cmd(`From: smtp@example.com\r\nTo: smtp${i}@dest.test\r\nSubject: pooled\r\n\r\nhello\r\n.`);
        ids.push(queuedId(r));
      } finally {
        c.socket.destroy();
      }
    }
    const want = [
      ...Array.from({ length: 10 }, (_, i) => `api${i}@dest.test`),
      ...[0, 1, 2].map((i) => `smtp${i}@dest.test`),
    ];
    await until(
      'every email to reach the recipient server',
      async () => {
        const got = new Set(mx.messages.flatMap((m) => m.rcptTo));
        return want.every((r) => got.has(r));
      },
      30_000,
    );
    for (const id of ids)
      await until(`${id} to be recorded as delivered`, async () => {
        const { data } = await resend.emails.get(id);
        return data?.last_event === 'delivered';
      });

    // Timestamps in Resend's UTC text format, although the server's TimeZone is New York's.
    const { data: one } = await resend.emails.get(ids[0]);
    assert.match(one!.created_at, /\+00$/, one!.created_at);

    // The pooler carried the API's and SMTP's queries ...
    const clients = await bouncer.admin('SHOW CLIENTS');
    assert.ok(
      clients.some((c) => c.database === 'mailroom'),
      `no Mailroom client on PgBouncer: ${JSON.stringify(clients)}`,
    );
    const stats = await bouncer.admin('SHOW STATS');
    const mailroomStats = stats.find((s) => s.database === 'mailroom');
    assert.ok(Number(mailroomStats?.total_xact_count) > 50, JSON.stringify(mailroomStats));
    // ... but not the LISTEN sessions: those are on PostgreSQL directly, LISTENing.
    assert.ok(!clients.some((c) => c.application_name === 'mailroom-jobs-listener'), JSON.stringify(clients));
    const admin = new pg.Client({ connectionString: pgs.urlOf('mailroom') });
    await admin.connect();
    try {
      const { rows } = await admin.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'mailroom-jobs-listener' AND query ILIKE 'LISTEN%'",
      );
      assert.ok(rows[0].n > 0, 'no LISTEN session on PostgreSQL');
      // Migrations ran (over the direct connection), and their lock is not left held anywhere.
      const locks = await admin.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
      assert.equal(locks.rows[0].n, 0);
    } finally {
      await admin.end();
    }
    for (const p of [front, worker]) {
      assert.ok(p.alive(), p.output().slice(-4000));
      assert.doesNotMatch(p.output(), /"level":"error"/, p.output().slice(-4000));
    }
  });
});

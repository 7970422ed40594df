// A rolling restart of `mailroom start` processes on one database (issue 26), with real
// processes: on SIGTERM a process answers new SMTP sessions (submission and MX) with 421 4.3.2,
// accepts the message whose DATA is arriving, answers the HTTP request in flight and refuses new
// connections, stops claiming jobs, gives back the leases of jobs still running at the shutdown
// timeout, and exits 0; the next process delivers what was accepted and finishes the jobs given
// back at once (not after their lease), each message once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Resend } from 'resend';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { startMailroom, type MailroomProcess } from '../helpers/mailroom-process.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { startRecordingSmtp, type RecordingSmtp } from '../helpers/recording-smtp.js';
import { queuedId, RawSmtp } from '../helpers/smtp-submit.js';
import { until } from '../helpers/until.js';
import { sleep } from '../../src/lib/time.js';

const KEY = 're_rolling_restart_test_key';
let db: TestDatabase;
let dns: FakeDns;
let mx: RecordingSmtp;
let domainReady = false;
let silent: net.Server | undefined; // a receiving server that never greets (the second test)
let silentSockets: net.Socket[] = [];
const dirs: string[] = [];
const procs: MailroomProcess[] = [];

function start(roles: string, extra: Record<string, string> = {}): MailroomProcess {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-rolling-'));
  dirs.push(dataDir);
  const p = startMailroom([], {
    MAILROOM_DATABASE_URL: db.url,
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_ROLES: roles,
    MAILROOM_HTTP_LISTEN: '127.0.0.1:0',
    MAILROOM_SMTP_LISTEN: '127.0.0.1:0:tls',
    MAILROOM_MX_LISTEN: '127.0.0.1:0',
    MAILROOM_MX_HOST: 'mx.mailroom.test',
    MAILROOM_HELO_NAME: 'out.mailroom.test',
    MAILROOM_SECRET_KEY: 'rolling-restart-secret',
    MAILROOM_BOOTSTRAP_API_KEY: KEY,
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_OUTBOUND_PORT: String(mx.port),
    ...extra,
  });
  procs.push(p);
  return p;
}

/** example.com, verified through the fake DNS (once per file: the database is shared). */
async function verifiedDomain(resend: Resend): Promise<void> {
  if (domainReady) return;
  const { data, error } = await resend.domains.create({ name: 'example.com' });
  if (error) throw new Error(error.message);
  publishRecords(dns, 'example.com', data!.records as unknown as WireRecord[]);
  await resend.domains.verify(data!.id);
  await until(
    'example.com verified',
    async () => (await resend.domains.get(data!.id)).data?.status === 'verified',
    30_000,
  );
  domainReady = true;
}

const leasedDeliveries = async () =>
  (
    await db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE kind = 'email.deliver' AND locked_by IS NOT NULL",
    )
  ).rows[0].n;

before(async () => {
  db = await freshDatabase();
  dns = await startFakeDns();
  mx = await startRecordingSmtp();
  dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
  dns.set('dest.test', 'MX', [{ exchange: 'mx1.dest.test', priority: 10 }]);
  dns.set('mx1.dest.test', 'A', ['127.0.0.1']);
});
after(async () => {
  for (const p of procs) p.kill();
  await Promise.all(procs.map((p) => p.exited));
  for (const sock of silentSockets) sock.destroy();
  silent?.close();
  await mx.close();
  await dns.close();
  await db.drop();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

test('SIGTERM during a DATA transfer: the message is accepted (250) and delivered later by the next process; new SMTP sessions get 421 4.3.2, the HTTP request in flight is answered, new HTTP connections are refused', {
  timeout: 170_000,
}, async () => {
  const p1 = start('api,smtp,mx,worker');
  const url = String((await p1.waitFor('http listening', 150_000)).url);
  const submission = Number((await p1.waitFor('smtp submission listening')).port);
  const inbound = Number((await p1.waitFor('smtp mx listening')).port);
  await verifiedDomain(new Resend(KEY, { baseUrl: url }));

  const sending = await RawSmtp.connect({ host: '127.0.0.1', port: submission, security: 'tls' }, { tls: true });
  assert.match(await sending.reply(), /^220 /);
  await sending.cmd('EHLO slow-client.test');
  assert.match(await sending.login(KEY), /^235 /);
  assert.match(await sending.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
  assert.match(await sending.cmd('RCPT TO:<slow@dest.test>'), /^250 /);
  assert.match(await sending.cmd('DATA'), /^354 /);
  sending.write('From: hello@example.com\r\nTo: slow@dest.test\r\nSubject: Sent across a restart\r\n\r\nfirst half, ');

  // An HTTP request in flight: its headers are in, its body comes after the SIGTERM.
  const body = JSON.stringify({
    from: 'hello@example.com',
    to: 'api@dest.test',
    subject: 'In flight over HTTP',
    text: 'hi',
  });
  const req = http.request(`${url}/emails`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    },
  });
  const answered = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.once('response', (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
      });
      res.once('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.once('error', reject);
  });
  req.write(body.slice(0, 20));
  req.flushHeaders();
  await sleep(300);

  p1.child.kill('SIGTERM');
  await p1.waitFor('shutting down', 10_000);
  await sleep(200);

  for (const [what, port] of [
    ['submission', submission],
    ['mx', inbound],
  ] as const) {
    const late = await RawSmtp.connect({ host: '127.0.0.1', port, security: 'tls' }, { tls: what === 'submission' });
    assert.match(await late.reply(), /^421 4\.3\.2 The service is shutting down or not ready\. Please retry\.$/, what);
    late.close();
  }
  await assert.rejects(fetch(`${url}/health`), 'new HTTP connections are refused');

  req.end(body.slice(20));
  const res = await answered;
  assert.equal(res.status, 200, res.body);
  const apiId = (JSON.parse(res.body) as { id: string }).id;

  sending.write('second half\r\n.\r\n');
  const smtpId = queuedId(await sending.reply(10_000));
  assert.match(await sending.reply(), /^421 4\.3\.2 /, 'then the session is closed with 421');
  sending.close();
  assert.equal(await p1.exited, 0, p1.output());
  assert.equal(mx.messages.length, 0, 'the stopping process claimed no delivery');

  const p2 = start('worker');
  await p2.waitFor('worker started', 150_000);
  const got = await mx.waitFor(2, 30_000);
  assert.deepEqual(got.map((m) => m.rcptTo.join()).sort(), ['api@dest.test', 'slow@dest.test']);
  assert.match(got.find((m) => m.rcptTo[0] === 'slow@dest.test')!.raw.toString(), /first half, second half/);
  const { rows } = await db.pool.query<{ id: string; last_event: string }>(
    'SELECT id, last_event FROM emails WHERE id = ANY($1::uuid[]) ORDER BY id',
    [[smtpId, apiId]],
  );
  assert.equal(rows.length, 2);
  await sleep(1_000);
  assert.equal(mx.messages.length, 2, 'each delivered once');
  p2.child.kill('SIGTERM');
  assert.equal(await p2.exited, 0, p2.output());
  mx.messages.length = 0;
});

test('SIGTERM with deliveries in flight: their leases are given back at the shutdown timeout, and the next process delivers them at once, each once', {
  timeout: 170_000,
}, async () => {
  // The first process delivers to a receiving server that accepts connections and never greets:
  // its deliveries hang in flight. (A timer-based stall would keep this test process alive.)
  const held: net.Socket[] = [];
  const server = net.createServer((sock) => {
    held.push(sock);
    sock.on('error', () => undefined);
  });
  silent = server;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const silentPort = (server.address() as net.AddressInfo).port;
  silentSockets = held;
  const p1 = start('api,worker', {
    MAILROOM_SHUTDOWN_TIMEOUT_MS: '2000',
    MAILROOM_OUTBOUND_PORT: String(silentPort),
  });
  const url = String((await p1.waitFor('http listening', 150_000)).url);
  const resend = new Resend(KEY, { baseUrl: url });
  await verifiedDomain(resend);
  const to = ['one@dest.test', 'two@dest.test', 'three@dest.test'];
  for (const rcpt of to) {
    const { error } = await resend.emails.send({ from: 'hello@example.com', to: rcpt, subject: 'Held', text: 'hi' });
    assert.equal(error, null);
  }
  await until(
    'three deliveries leased and in flight',
    async () => (await leasedDeliveries()) === 3 && held.length >= 1,
    30_000,
  );

  const stopAt = Date.now();
  p1.child.kill('SIGTERM');
  assert.equal(await p1.exited, 0, p1.output());
  const stopMs = Date.now() - stopAt;
  assert.ok(stopMs < 10_000, `stopped within the shutdown timeout and some: ${stopMs} ms`);
  assert.ok(
    p1.lines.some((l) => l.msg === 'worker stopped with handlers still running; their jobs were released'),
    p1.output(),
  );
  assert.equal(await leasedDeliveries(), 0, 'no lease left by the stopped process');
  const { rows } = await db.pool.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM jobs WHERE kind = 'email.deliver' AND state = 'pending' AND run_at <= now()",
  );
  assert.equal(rows[0].n, 3, 'given back, due now');
  assert.equal(mx.messages.length, 0);

  for (const sock of held) sock.destroy();
  server.close();
  const p2 = start('worker');
  await p2.waitFor(
    'worker started',
    150_000,
    (l) => (l.kinds as string[] | undefined)?.includes('email.deliver') ?? false,
  );
  const startedAt = Date.now();
  const got = await mx.waitFor(3, 30_000);
  const took = Date.now() - startedAt;
  assert.ok(took < 15_000, `delivered ${took} ms after the next worker started: well before the 60 s lease`);
  assert.deepEqual(got.map((m) => m.rcptTo.join()).sort(), [...to].sort());
  await sleep(1_000);
  assert.equal(mx.messages.length, 3, 'each delivered once');
  p2.child.kill('SIGTERM');
  assert.equal(await p2.exited, 0, p2.output());
});

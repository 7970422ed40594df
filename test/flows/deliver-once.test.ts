// Issue 26: kill -9 of one of two worker processes while they deliver. A delivery's result goes to
// PostgreSQL as soon as its answer is read, so the killed process's jobs, re-run by others, send
// again only what was on the wire at the kill: messages whose answer it had not read. The receiver
// counts every message it answered, by Message-ID, and which process sent it (each says its own
// EHLO name); each process logs (debug) when it read an answer and when the result was written.
// Without the fix (one results statement at a time, the others waiting in memory) this fails only
// when the kill lands while results wait: seen in 1 of 5 runs on a loaded 2-core box.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mailroomEntry } from '../helpers/cli.js';
import { ROOT } from '../helpers/root.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { startRecordingSmtp, type RecordedMessage, type RecordingSmtp } from '../helpers/recording-smtp.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { closeAll } from '../helpers/close-all.js';
import { until } from '../helpers/until.js';

const EMAILS = 900;
const ANSWER_MS = 20; // the receiver's hold on each DATA reply
// A result is written in one statement within 5 ms of its answer (the recorder's linger, issue 27): a
// message whose answer was read this shortly before the kill may still be unwritten (its statement not
// sent yet), and may go again.
// 25 ms, not the 5 ms seen on a quiet run: under the full suite (two test files at once on two cores)
// the process that read the answer can be descheduled for longer than that before the statement goes.
// Results kept until a batch or a broadcast's end (the code before issue 26) wait far longer.
const RECORD_WINDOW_MS = 25;

interface Proc {
  child: ChildProcess;
  out: string;
  exited: Promise<number>; // when it exited (Date.now())
  // From its debug lines: when it read each email's answer, and when it had written the result.
  answered: Map<string, number>;
  recorded: Map<string, number>;
}

function startWorker(name: string, db: TestDatabase, dns: FakeDns, mx: RecordingSmtp, dirs: string[]): Proc {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `mailroom-deliver-once-${name}-`));
  dirs.push(dataDir);
  const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH!,
      HOME: process.env.HOME!,
      // Its own application_name: the test sees when the killed process's sessions have ended.
      MAILROOM_DATABASE_URL: `${db.url}${db.url.includes('?') ? '&' : '?'}application_name=mailroom-${name}`,
      MAILROOM_DATA_DIR: dataDir,
      MAILROOM_ROLES: 'worker',
      MAILROOM_LOG_LEVEL: 'debug', // 'delivery answered' and 'delivery recorded', per email
      MAILROOM_MX_HOST: 'mx.mailroom.test',
      MAILROOM_SECRET_KEY: `test-secret:${db.url}`, // the API's: DKIM keys are sealed with it
      MAILROOM_DNS_SERVERS: dns.address,
      MAILROOM_OUTBOUND_PORT: String(mx.port),
      MAILROOM_HELO_NAME: `${name}.out.mailroom.test`, // tells the receiver which process sent
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const p: Proc = {
    child,
    out: '',
    exited: new Promise((r) => child.once('exit', () => r(Date.now()))),
    answered: new Map(),
    recorded: new Map(),
  };
  let partial = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (partial + d.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (line.includes('"msg":"delivery answered"')) {
        const rec = JSON.parse(line) as { time: string; email_id: string };
        p.answered.set(rec.email_id, Date.parse(rec.time));
      } else if (line.includes('"msg":"delivery recorded"')) {
        const rec = JSON.parse(line) as { time: string; email_id: string };
        p.recorded.set(rec.email_id, Date.parse(rec.time));
      } else if (!line.includes('"level":"debug"') && p.out.length < 50_000) p.out += line + '\n';
    }
  });
  child.stderr!.on('data', (d: Buffer) => {
    if (p.out.length < 50_000) p.out += d.toString();
  });
  return p;
}

const messageId = (m: RecordedMessage) => /^message-id:\s*(\S+)/im.exec(m.raw.toString('latin1'))?.[1] ?? '?';

describe('kill -9 of a delivering worker process', () => {
  let db: TestDatabase;
  let dns: FakeDns;
  let mx: RecordingSmtp;
  let api: TestApp;
  const dirs: string[] = [];
  const procs: Proc[] = [];
  before(async () => {
    db = await freshDatabase();
    dns = await startFakeDns();
    mx = await startRecordingSmtp({ starttls: false });
    dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
    dns.set('dest.test', 'MX', [{ exchange: 'mx1.dest.test', priority: 10 }]);
    dns.set('mx1.dest.test', 'A', ['127.0.0.1']);
    // The API in this process, no worker: the two worker processes below deliver.
    api = await startTestApp({ roles: ['api'], dnsServers: [dns.address], rateLimit: 100_000 }, { db });
  });
  after(async () => {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await closeAll(
      () => api?.close(),
      () => mx?.close(),
      () => dns?.close(),
      () => db?.drop(),
      () => {
        for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
      },
    );
  });

  test(`${EMAILS} emails, two workers, one killed mid-delivery and restarted: all delivered, again only what was on the wire`, async () => {
    const { data, error } = await api.resend.domains.create({ name: 'example.com' });
    assert.equal(error, null, JSON.stringify(error));
    publishRecords(dns, 'example.com', data!.records as unknown as WireRecord[]);
    await api.resend.domains.verify(data!.id);
    mx.answerDelayMs = ANSWER_MS;

    // The emails wait in the queue first, so that both workers deliver at full speed from the start.
    const ids: string[] = [];
    for (let i = 0; i < EMAILS; i += 50) {
      const r = await api.resend.batch.send(
        Array.from({ length: Math.min(50, EMAILS - i) }, (_, j) => ({
          from: 'Acme <hello@example.com>',
          to: `r${i + j}@dest.test`,
          subject: `Hello ${i + j}`,
          text: 'Hi',
        })),
      );
      assert.equal(r.error, null, JSON.stringify(r.error));
      ids.push(...r.data!.data.map((d) => d.id));
    }

    const a = startWorker('a', db, dns, mx, dirs);
    const b = startWorker('b', db, dns, mx, dirs);
    procs.push(a, b);
    const fromA = (m: RecordedMessage) => m.heloName === 'a.out.mailroom.test';
    // Killed once it has had a quarter of the messages answered, in the middle of its deliveries.
    // (Starting takes a few seconds on a quiet machine; far longer on a loaded one.)
    await until('process a to deliver', async () => mx.messages.filter(fromA).length >= EMAILS / 4, 120_000).catch(
      (err) => assert.fail(`${err.message}\n${a.out}\n${b.out}`),
    );
    const killedAt = Date.now();
    a.child.kill('SIGKILL');
    const deadAt = await a.exited;

    // The dead process's leases run out (60 s) before its jobs run elsewhere: here as soon as its
    // database sessions have ended (a statement it had sent, waiting on a lock, still finishes).
    await until(
      "the killed process's database sessions to end",
      async () =>
        (await db.pool.query("SELECT 1 FROM pg_stat_activity WHERE application_name = 'mailroom-a'")).rowCount === 0,
      20_000,
    );
    const pid = a.child.pid!;
    await db.pool.query(`UPDATE jobs SET locked_until = now() WHERE locked_by LIKE '%:' || $1 || ':%'`, [String(pid)]);
    await db.pool.query("SELECT pg_notify('mailroom_jobs', 'email.deliver')");
    const a2 = startWorker('a2', db, dns, mx, dirs);
    procs.push(a2);

    const delivered = async () =>
      (
        await db.pool.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM emails WHERE id = ANY($1::uuid[]) AND last_event = 'delivered'",
          [ids],
        )
      ).rows[0].n;
    await until('every email delivered', async () => (await delivered()) === EMAILS, 120_000).catch(async (err) =>
      assert.fail(`${err.message}: ${await delivered()} of ${EMAILS}\n${b.out.slice(-3000)}\n${a2.out.slice(-3000)}`),
    );
    await until('no message left on the wire', async () => mx.held.size === 0, 5_000);

    const emailOf = new Map(
      (
        await db.pool.query<{ id: string; message_id: string }>(
          'SELECT id, message_id FROM emails WHERE id = ANY($1::uuid[])',
          [ids],
        )
      ).rows.map((r) => [r.message_id.replace(/^<|>$/g, ''), r.id]),
    );
    const copies = new Map<string, RecordedMessage[]>();
    for (const m of mx.messages) {
      const k = emailOf.get(messageId(m).replace(/^<|>$/g, '')) ?? `? ${messageId(m)}`;
      copies.set(k, [...(copies.get(k) ?? []), m]);
    }
    assert.equal(copies.size, EMAILS, 'every email reached the receiver, each under its own Message-ID');
    const duplicates = [...copies].filter(([, c]) => c.length > 1);
    const extra = duplicates.reduce((n, [, c]) => n + c.length - 1, 0);
    for (const [, c] of duplicates) assert.ok(fromA(c[0]), 'a message sent twice was first sent by the killed process');
    assert.ok(a.answered.size > 0, "process a logged the answers it read (debug 'delivery answered')");

    // Each message sent again was on the wire at the kill: the killed process had not read its
    // answer, or had read it within RECORD_WINDOW_MS before the kill (its result being written).
    // A result that waited longer unwritten (behind another write) is what this test catches.
    const unread = duplicates.filter(([id]) => !a.answered.has(id));
    const readAgo = (id: string) => killedAt - a.answered.get(id)!;
    const unwritten = duplicates.filter(([id]) => a.answered.has(id)).map(([id]) => readAgo(id));
    const ofA = mx.messages.filter((m) => fromA(m) && m.receivedAt <= deadAt);
    const held = ofA.filter((m) => m.answeredAt! >= killedAt).length;
    const readBefore = (ms: number) =>
      [...a.answered.values()].filter((t) => t <= killedAt && t > killedAt - ms).length;
    process.stdout.write(
      `# process a: ${ofA.length} answered by the receiver, ${a.answered.size} answers read, ${a.recorded.size} results written; ` +
        `at the kill ${held} held by the receiver; answers read in the 10/25/50/100 ms before the kill: ` +
        `${readBefore(10)}/${readBefore(25)}/${readBefore(50)}/${readBefore(100)}\n` +
        `# sent twice: ${extra} (${unread.length} whose answer a had not read; ${unwritten.length} read but unwritten, read ms before the kill: ${unwritten.sort((x, y) => x - y).join(' ')})\n`,
    );
    // How long results stayed unwritten after their answer was read (both processes' lines).
    const waits = [a, b]
      .flatMap((p) => [...p.recorded].map(([id, t]) => t - p.answered.get(id)!))
      .sort((x, y) => x - y);
    const pct = (q: number) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))];
    process.stdout.write(
      `# answer read to result written, ms: p50 ${pct(0.5)}, p90 ${pct(0.9)}, p99 ${pct(0.99)}, max ${waits.at(-1)} (${waits.length} results)\n`,
    );
    const late = unwritten.filter((ms) => ms > RECORD_WINDOW_MS);
    assert.deepEqual(
      late,
      [],
      `every message sent again was on the wire at the kill: none whose answer was read more than ${RECORD_WINDOW_MS} ms before it`,
    );

    // The results are recorded exactly once whatever was sent twice (a re-run skips what was
    // recorded), and no delivery job is left behind: a job ends in its results' statement (issue 27),
    // so a kill -9 leaves a job with its results unwritten, or neither.
    const recorded = await db.pool.query<{ n: number; emails: number }>(
      `SELECT count(*)::int AS n, count(DISTINCT email_id)::int AS emails FROM email_events
       WHERE email_id = ANY($1::uuid[]) AND type = 'email.delivered'`,
      [ids],
    );
    assert.deepEqual(recorded.rows[0], { n: EMAILS, emails: EMAILS }, 'one email.delivered event per email');
    await until(
      'no delivery job left',
      async () =>
        (
          await db.pool.query(
            "SELECT 1 FROM jobs WHERE kind = 'email.deliver' AND payload->>'email_id' = ANY($1::text[])",
            [ids],
          )
        ).rowCount === 0,
      10_000,
    );

    for (const p of [b, a2]) p.child.kill('SIGTERM');
    await Promise.all([b.exited, a2.exited]);
  });
});

// An MX process (a real `mailroom start`, role mx) receiving several large messages whose bytes
// trickle in: SIGTERM mid-DATA must end the process within its drain deadline (a DATA still
// arriving at the deadline is cut, a message already received is stored or refused, and no
// database client is left held: the process's last step, the pool's end, waits for every client),
// and nothing may be half-stored: a client answered 250 finds its message whole (raw copy, parsed
// subject, attachment size), a client answered 4xx or cut off finds nothing, and no blob chunk is
// left without its row. Then kill -9 mid-DATA and a restart on the same data directory: the next
// start works, no spool file is left, and the same holds. (The regression: a one-pass spool
// change in which a DATA cut at the deadline left the MX process never exiting, issue 27.)
// MAILROOM_TEST_PORT_BASE pins the listening ports (for a shared machine); otherwise free ones.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { startMailroom, type MailroomProcess } from '../helpers/mailroom-process.js';
import { freePort } from '../helpers/free-port.js';
import { closeAll } from '../helpers/close-all.js';
import { apiKeyToken } from '../../src/lib/ids.js';
import { sleep } from '../../src/lib/time.js';

const SHUTDOWN_MS = 4_000;
const PORT_BASE = Number(process.env.MAILROOM_TEST_PORT_BASE ?? 0);
const port = async (n: number) => (PORT_BASE ? PORT_BASE + n : freePort());

/** A message of about 1.4 MB: a text part and a 1 MB attachment of random bytes, base64. */
function bigMessage(tag: string): { raw: Buffer; attachment: number } {
  const att = randomBytes(1024 * 1024);
  const b64 = att.toString('base64').replace(/.{76}/g, '$&\r\n');
  const raw = Buffer.from(
    [
      'From: someone@outside.test',
      'To: big@inbound.test',
      `Subject: big ${tag}`,
      `Message-ID: <${tag}@outside.test>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `hello ${tag}`,
      '--b1',
      'Content-Type: application/octet-stream',
      'Content-Disposition: attachment; filename="blob.bin"',
      'Content-Transfer-Encoding: base64',
      '',
      b64.endsWith('\r\n') ? b64.slice(0, -2) : b64,
      '--b1--',
      '',
    ].join('\r\n'),
  );
  return { raw, attachment: att.length };
}

interface Sent {
  tag: string;
  raw: Buffer;
  attachment: number;
  /** the reply to the end of DATA, or 'closed' when the connection ended without one */
  reply: string;
  inData: boolean;
}

/**
 * One message to the MX listener: the first `fast` bytes at once, the rest in `piece`-byte
 * pieces every `everyMs` (a slow client). Resolves with the reply to the end of DATA, or 'closed'.
 */
function trickle(p: number, m: Sent, fast: number, piece: number, everyMs: number): Promise<void> {
  return new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port: p });
    const script = ['EHLO outside.test', 'MAIL FROM:<someone@outside.test>', 'RCPT TO:<big@inbound.test>', 'DATA'];
    let buf = '';
    let step = 0;
    let settled = false;
    const settle = (reply: string) => {
      if (settled) return;
      settled = true;
      m.reply = reply;
      s.destroy();
      resolve();
    };
    s.setTimeout(120_000, () => settle('closed (client timeout)'));
    s.on('error', () => settle('closed'));
    s.on('close', () => settle('closed'));
    const sendBody = async () => {
      m.inData = true;
      const body = Buffer.concat([m.raw, Buffer.from('.\r\n')]);
      let off = Math.min(fast, body.length);
      if (!s.write(body.subarray(0, off))) await new Promise((r) => s.once('drain', r));
      while (off < body.length && !s.destroyed) {
        await sleep(everyMs);
        const next = Math.min(off + piece, body.length);
        s.write(body.subarray(off, next));
        off = next;
      }
    };
    s.on('data', (d) => {
      buf += d;
      for (;;) {
        const i = buf.indexOf('\r\n');
        if (i < 0) return;
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        if (!/^\d{3} /.test(line)) continue;
        const code = line.slice(0, 3);
        if (step === 5) return settle(line); // the reply to the end of DATA
        if (!code.startsWith('2') && !code.startsWith('3')) return settle(line);
        if (step === 4) {
          step = 5; // 354: the message
          void sendBody();
        } else s.write(`${script[step++]}\r\n`);
      }
    });
  });
}

describe('the MX process stopped mid-DATA: exits within its deadline, nothing half-stored', () => {
  let db: TestDatabase;
  let dns: FakeDns;
  let api: MailroomProcess | undefined;
  let mxPort = 0;
  const dirs: string[] = [];
  const procs: MailroomProcess[] = [];
  const sent: Sent[] = [];
  let mxDir = '';
  const key = apiKeyToken();

  const env = (roles: string, extra: Record<string, string> = {}): Record<string, string> => ({
    MAILROOM_DATABASE_URL: db.url,
    MAILROOM_SECRET_KEY: `mx-shutdown-test:${db.url}`,
    MAILROOM_REDIS_URL: 'redis://127.0.0.1:6379',
    MAILROOM_BOOTSTRAP_API_KEY: key,
    MAILROOM_MX_HOST: 'mx.mailroom.test',
    MAILROOM_DNS_SERVERS: dns.address,
    MAILROOM_MX_DNS_CACHE_SECONDS: '0',
    MAILROOM_ALLOW_PRIVATE_NETWORKS: 'true',
    MAILROOM_DATABASE_POOL_SIZE: '4', // fewer clients than concurrent messages, as in the cluster test
    MAILROOM_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_MS),
    MAILROOM_MX_MAX_CONNECTIONS_PER_IP: '100',
    MAILROOM_ROLES: roles,
    ...extra,
  });

  async function startMx(): Promise<MailroomProcess> {
    const p = startMailroom([], env('mx', { MAILROOM_MX_LISTEN: `127.0.0.1:${mxPort}`, MAILROOM_DATA_DIR: mxDir }));
    procs.push(p);
    try {
      await p.waitFor('mailroom started', 180_000);
    } catch (err) {
      p.kill(); // a start slower than the bound must not hold the port for the next one
      await p.exited;
      throw err;
    }
    return p;
  }

  /**
   * `n` slow clients started together; client i sends its first 1.2 MB at once (past the spool's
   * 1 MB: a file) and the rest in 16 KB pieces, so they finish spread over `spreadMs`.
   */
  function clients(round: string, n: number, spreadMs: number): { all: Promise<void>; batch: Sent[] } {
    const batch: Sent[] = [];
    const runs: Promise<void>[] = [];
    for (let i = 0; i < n; i++) {
      const tag = `${round}-${i}-${randomBytes(4).toString('hex')}`;
      const { raw, attachment } = bigMessage(tag);
      const m: Sent = { tag, raw, attachment, reply: '', inData: false };
      batch.push(m);
      sent.push(m);
      const rest = raw.length - 1_200_000;
      const pieces = Math.max(1, Math.ceil(rest / 16_384));
      const everyMs = Math.max(1, Math.round((((i + 1) / n) * spreadMs) / pieces));
      runs.push(trickle(mxPort, m, 1_200_000, 16_384, everyMs));
    }
    return { all: Promise.all(runs).then(() => undefined), batch };
  }

  /** 250 = stored whole; anything else = nothing stored; no blob chunk without its row. */
  async function checkStored(batch: Sent[]) {
    for (const m of batch) {
      const mid = `<${m.tag}@outside.test>`;
      const rows = await db.pool.query(
        `SELECT e.id, e.subject, e.raw_size::int AS raw_size,
                (SELECT coalesce(sum(length(c.data)), 0)::int FROM blob_chunks c WHERE c.blob_id = e.raw_blob) AS raw_bytes,
                (SELECT json_agg(json_build_object('size', a.size::int,
                   'bytes', (SELECT coalesce(sum(length(c.data)), 0)::int FROM blob_chunks c WHERE c.blob_id = a.blob_id)))
                 FROM received_attachments a WHERE a.email_id = e.id) AS atts
           FROM received_emails e WHERE e.message_id = $1`,
        [mid],
      );
      if (m.reply.startsWith('250')) {
        assert.equal(rows.rowCount, 1, `${m.tag}: answered 250, stored once`);
        const r = rows.rows[0];
        assert.ok(m.reply.includes(r.id), `${m.tag}: the 250 names the stored id (${m.reply})`);
        assert.equal(r.subject, `big ${m.tag}`, `${m.tag}: parsed whole`);
        assert.equal(r.raw_size, m.raw.length, `${m.tag}: raw size`);
        assert.equal(r.raw_bytes, m.raw.length, `${m.tag}: raw copy whole`);
        assert.deepEqual(r.atts, [{ size: m.attachment, bytes: m.attachment }], `${m.tag}: attachment whole`);
      } else {
        assert.match(m.reply, /^(4\d\d |closed)/, `${m.tag}: not 250, then 4xx or cut off`);
        assert.equal(rows.rowCount, 0, `${m.tag}: answered "${m.reply}" but stored`);
      }
    }
    const orphans = await db.pool.query(
      `SELECT count(DISTINCT blob_id)::int AS n FROM blob_chunks c
        WHERE NOT EXISTS (SELECT 1 FROM received_emails e WHERE e.raw_blob = c.blob_id)
          AND NOT EXISTS (SELECT 1 FROM received_attachments a WHERE a.blob_id = c.blob_id)`,
    );
    assert.equal(orphans.rows[0].n, 0, 'no blob chunks without their row');
    const held = await db.pool.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND state LIKE 'idle in transaction%'`,
    );
    assert.equal(held.rows[0].n, 0, 'no transaction left open');
  }

  before(async () => {
    db = await freshDatabase();
    dns = await startFakeDns();
    mxPort = await port(0);
    const httpPort = await port(1);
    mxDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-mx-shutdown-'));
    const apiDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-mx-shutdown-api-'));
    dirs.push(mxDir, apiDir);
    dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
    api = startMailroom([], env('api', { MAILROOM_HTTP_LISTEN: `127.0.0.1:${httpPort}`, MAILROOM_DATA_DIR: apiDir }));
    procs.push(api);
    const started = await api.waitFor('mailroom started', 120_000);
    const http = started.http as string;
    const inbound = await fetch(`${http}/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'inbound.test', capabilities: { sending: 'disabled', receiving: 'enabled' } }),
    }).then((r) => r.json());
    publishRecords(dns, 'inbound.test', inbound.records as WireRecord[]);
    const v = await fetch(`${http}/domains/${inbound.id}/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(v.status, 200);
    await api.stop();
  });
  after(() =>
    closeAll(
      ...procs.map((p) => () => p.kill()),
      () => dns?.close(),
      () => db?.drop(),
      ...dirs.map((d) => () => fs.rmSync(d, { recursive: true, force: true })),
    ),
  );

  for (const round of ['a', 'b', 'c']) {
    test(`round ${round}: SIGTERM while eight slow clients are in DATA; exit 0 within the deadline`, async () => {
      const mx = await startMx();
      // Eight clients (twice the pool's clients) finishing over 2 x the shutdown timeout: some are
      // stored during the drain, some end DATA right at the deadline, some are cut.
      const { all, batch } = clients(round, 8, 2 * SHUTDOWN_MS);
      const t0 = Date.now();
      while (!batch.every((m) => m.inData) && Date.now() - t0 < 30_000) await sleep(20);
      assert.ok(
        batch.every((m) => m.inData),
        'every client reached DATA',
      );
      await sleep(300);
      const signalled = Date.now();
      mx.child.kill('SIGTERM');
      const code = await Promise.race([mx.exited, sleep(SHUTDOWN_MS + 30_000).then(() => 'still running')]);
      const took = Date.now() - signalled;
      if (code === 'still running') mx.kill();
      assert.equal(code, 0, `the MX process exits 0 after SIGTERM (after ${took} ms)\n${mx.output().slice(-4000)}`);
      assert.ok(
        mx.lines.some((l) => l.msg === 'mailroom stopped'),
        'it stopped through its shutdown (the pool ended: no client held)',
      );
      await all;
      const replies = batch.map((m) => m.reply.slice(0, 3));
      assert.ok(
        replies.some((r) => r !== '250'),
        `some client was cut at the deadline: ${replies}`,
      );
      await checkStored(batch);
    });
  }

  test('kill -9 mid-DATA, then a restart on the same data directory: it starts, no spool file left', async () => {
    const mx = await startMx();
    const { all, batch } = clients('k', 6, 3_000);
    const t0 = Date.now();
    while (!batch.every((m) => m.inData) && Date.now() - t0 < 30_000) await sleep(20);
    await sleep(1_500); // some have ended DATA and are being stored, some are still arriving
    const spoolDir = path.join(mxDir, 'inbound-spool');
    mx.kill();
    await mx.exited;
    await all;
    const mx2 = await startMx();
    assert.deepEqual(fs.existsSync(spoolDir) ? fs.readdirSync(spoolDir) : [], [], 'the spool is empty after the start');
    await checkStored(batch);
    // And the restarted process takes a large message whole.
    const { all: one, batch: b1 } = clients('after', 1, 200);
    await one;
    assert.match(b1[0].reply, /^250 /);
    await checkStored(b1);
    mx2.child.kill('SIGTERM');
    assert.equal(await Promise.race([mx2.exited, sleep(SHUTDOWN_MS + 30_000).then(() => 'still running')]), 0);
  });
});

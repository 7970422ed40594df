// PostgreSQL's CPU for the accept statement (store/emails.ts emailsInsertAccepted) on two databases
// that differ by one schema change, measured alternately (issue 27): A is the schema as migrated,
// B the same plus VARIANT_SQL (e.g. an index or a key dropped). Each round writes the same number
// of batches of 100 emails (one statement each, one connection per database) to A then B, or B then
// A, and reads each backend's CPU from /proc (utime+stime). Alternating rounds cancel the drift a
// shared machine shows between runs minutes apart, which hid changes of ~10% in whole benchmarks.
// Run an A/A first (VARIANT_SQL="SELECT 1") to see the noise: both sides agreed within ~2% here.
// The emails are what the accept path builds for a small HTML email (EmailAcceptor.email).
// Usage: MAILROOM_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5440/postgres \
//   VARIANT_SQL="DROP INDEX emails_search" node --import tsx bench/pg-accept-ab.ts [rounds=30] [batches=10]
// The server must be local (the backends' /proc is read). Both databases are fresh and dropped.
import { randomUUID } from 'node:crypto';
import { EmailAcceptor } from '../src/emails/accept.js';
import type { Address } from '../src/mime/addresses.js';
import { createPool } from '../src/store/db.js';
import { emailsInsertAccepted } from '../src/store/emails.js';
import type { DomainRow } from '../src/store/domains.js';
import { freshDatabase, seedDomain } from '../test/helpers/db.js';
import { cpuSeconds, loadAverage } from './lib.js';

const rounds = Number(process.argv[2] ?? 30);
const batches = Number(process.argv[3] ?? 10);
const PER_BATCH = 100;

async function side(variant?: string) {
  const db = await freshDatabase();
  const team = randomUUID();
  const domain = randomUUID();
  await db.pool.query(`INSERT INTO teams (id, name) VALUES ($1, 'ab')`, [team]);
  await seedDomain(db.pool, { id: domain, teamId: team, name: 'bench.example' });
  if (variant) await db.pool.query(variant);
  // The service's kind of pool (its session settings, statements prepared once per session), one
  // connection held throughout; committing as the service's sessions do (freshDatabase turns the
  // wait for the WAL flush off for tests).
  const pool = createPool(db.url, 1);
  const c = await pool.connect();
  await c.query('SET synchronous_commit = on');
  const pid = (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0].p;
  return { db, pool, c, pid, team, domain, cpu: 0, emails: 0 };
}
type Side = Awaited<ReturnType<typeof side>>;

const acceptor = new EmailAcceptor(null as never, null as never); // email() touches neither
const from: Address = { name: 'Bench', address: 'bench@bench.example', domain: 'bench.example' } as Address;
const to: Address = { name: '', address: 'sink@sink.test', domain: 'sink.test' } as Address;
const html = '<p>Hello <b>there</b>, this is a small benchmark email.</p>';
const text = 'Hello there, this is a small benchmark email.';
const raw = Buffer.from(
  `From: Bench <bench@bench.example>\r\nTo: sink@sink.test\r\nSubject: Benchmark\r\nMIME-Version: 1.0\r\n` +
    `Content-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\n${text}\r\n` +
    `--b\r\nContent-Type: text/html\r\n\r\n${html}\r\n--b--\r\n`,
);

function batch(s: Side) {
  const now = new Date();
  const domain = { id: s.domain, region: 'us-east-1' } as DomainRow;
  return Array.from({ length: PER_BATCH }, () => {
    const id = randomUUID();
    return acceptor.email(
      { teamId: s.team, apiKeyId: null, keyDomainId: null, source: 'api' },
      { domain, topicId: null },
      {
        id,
        from,
        to: [to],
        cc: [],
        bcc: [],
        replyTo: [],
        subject: 'Benchmark',
        html,
        text,
        headers: [],
        tags: [],
        scheduledAt: null,
        messageId: `<${id}@bench.example>`,
        raw,
        listMail: false,
        listId: null,
        broadcastId: null,
        automationId: null,
      },
      now,
    );
  });
}

const A = await side();
const B = await side(process.env.VARIANT_SQL);
try {
  for (let w = 0; w < 3; w++) for (const s of [A, B]) await emailsInsertAccepted(s.c, batch(s)); // warm-up
  let bLower = 0;
  let ties = 0;
  for (let r = 0; r < rounds; r++) {
    const used = new Map<Side, number>();
    for (const s of r % 2 ? [B, A] : [A, B]) {
      const work = Array.from({ length: batches }, () => batch(s));
      const t0 = cpuSeconds(s.pid);
      for (const w of work) await emailsInsertAccepted(s.c, w);
      const d = Math.round((cpuSeconds(s.pid) - t0) * 100); // clock ticks of 10 ms
      used.set(s, d);
      s.cpu += d;
      s.emails += PER_BATCH * batches;
    }
    if (used.get(B)! < used.get(A)!) bLower++;
    else if (used.get(B) === used.get(A)) ties++;
  }
  const us = (s: Side) => Math.round((s.cpu * 100_000) / s.emails) / 10; // ticks of 10 ms -> µs, one decimal
  console.log(
    JSON.stringify({
      a_us_per_email: us(A),
      b_us_per_email: us(B),
      emails_each: A.emails,
      rounds,
      rounds_b_lower: bLower,
      rounds_tied: ties,
      variant: process.env.VARIANT_SQL ?? null,
      load: loadAverage(),
    }),
  );
} finally {
  for (const s of [A, B]) {
    s.c.release();
    await s.pool.end();
    await s.db.drop();
  }
}

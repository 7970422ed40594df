// The two-database A/B method of bench/pg-accept-ab.ts and bench/pg-results-ab.ts (issue 27): A is
// the schema as migrated, B the same plus VARIANT_SQL; each side holds one connection of the
// service's kind of pool whose backend's CPU is read from /proc, and a second one for the setup a
// round needs (so the measured backend does only the measured statements). The emails are what the
// accept path builds for a small HTML email (EmailAcceptor.email).
import { randomUUID } from 'node:crypto';
import { EmailAcceptor } from '../src/emails/accept.js';
import type { Address } from '../src/mime/addresses.js';
import { createPool } from '../src/store/db.js';
import type { DomainRow } from '../src/store/domains.js';
import { freshDatabase, seedDomain } from '../test/helpers/db.js';
import { cpuSeconds } from './lib.js';

export async function abSide(variant?: string) {
  const db = await freshDatabase();
  const team = randomUUID();
  const domain = randomUUID();
  await db.pool.query(`INSERT INTO teams (id, name) VALUES ($1, 'ab')`, [team]);
  await seedDomain(db.pool, { id: domain, teamId: team, name: 'bench.example' });
  if (variant) await db.pool.query(variant);
  // The service's kind of pool (its session settings, statements prepared once per session);
  // committing as the service's sessions do (freshDatabase turns the wait for the WAL flush off).
  const pool = createPool(db.url, 2);
  const c = await pool.connect();
  const setup = await pool.connect();
  for (const x of [c, setup]) await x.query('SET synchronous_commit = on');
  const pid = (await c.query<{ p: number }>('SELECT pg_backend_pid() AS p')).rows[0].p;
  return { db, pool, c, setup, pid, team, domain, ticks: 0, items: 0 };
}
export type AbSide = Awaited<ReturnType<typeof abSide>>;

export async function abSideEnd(s: AbSide) {
  s.c.release();
  s.setup.release();
  await s.pool.end();
  await s.db.drop();
}

/** The measured backend's CPU in clock ticks of 10 ms while `work` runs. */
export async function ticksOf(s: AbSide, work: () => Promise<void>): Promise<number> {
  const t0 = cpuSeconds(s.pid);
  await work();
  return Math.round((cpuSeconds(s.pid) - t0) * 100);
}

/** µs per item, one decimal, from a side's ticks of 10 ms. */
export const usPerItem = (s: AbSide) => Math.round((s.ticks * 100_000) / s.items) / 10;

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

/** `n` accepted emails of a side's team, as the API's accept path composes them. */
export function acceptedEmails(s: AbSide, n: number) {
  const now = new Date();
  const domain = { id: s.domain, region: 'us-east-1' } as DomainRow;
  return Array.from({ length: n }, () => {
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

// The delivery path's statements read `emails` by primary key whatever the statistics and the
// plans a session keeps (issue 27). A broadcast benchmark spent 3.5-4.5 ms of PostgreSQL per copy in
// two runs of five (0.8 ms in the others): plans a session keeps, made while `emails` was smaller
// or analyzed before the broadcast began, then read the whole table (a hash join against the 100
// rows PostgreSQL assumes of a JSON set, or of the trigger's transition table at its first call) or
// every copy of the broadcast (a partial broadcast index that the statistics said was empty) at
// each call. Measured with the transaction's own counters (pg_stat_xact_user_tables,
// pg_stat_get_xact_numscans): after plans made on a 3,000-email table with no broadcast copy and
// 25,000 emails more, no sequential scan of emails and no index walked but the primary key's.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { freshDatabase, seedDomain, type TestDatabase } from '../helpers/db.js';
import { countersDuring } from '../helpers/xact-counters.js';
import type { EventInsert } from '../../src/store/emails.js';
import { emailEventsInsertMany, emailsLoadForDelivery } from '../../src/store/email-delivery.js';
import { webhookOutboxReadEmailEvents } from '../../src/store/webhook-outbox.js';

let db: TestDatabase;
const team = randomUUID();
const domain = randomUUID();
const broadcast = randomUUID();

async function insertEmails(n: number, broadcastId: string | null): Promise<string[]> {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO emails (id, team_id, domain_id, broadcast_id, message_id, from_header, to_addrs, subject, last_event, html)
     SELECT gen_random_uuid(), $1, $2, $3, '<' || i || '@x.test>', 'a@x.test', ARRAY['r' || i || '@y.test'], 's', 'sent', repeat('<p>x</p>', 100)
     FROM generate_series(1, $4) i RETURNING id`,
    [team, domain, broadcastId, n],
  );
  return rows.map((r) => r.id);
}

const delivered = (emailId: string): EventInsert => ({
  id: randomUUID(),
  email_id: emailId,
  team_id: team,
  type: 'email.delivered',
  recipient: 'r@y.test',
  data: {},
  created_at: new Date().toISOString(),
});

// Sequential scans of emails, and walks of any of its indexes but the primary key's (the partial
// broadcast indexes looked empty to statistics taken before the broadcast).
const COUNTERS = `SELECT (SELECT coalesce(seq_scan, 0) FROM pg_stat_xact_user_tables WHERE relname = 'emails')::int AS seq,
   (SELECT coalesce(sum(pg_stat_get_xact_numscans(indexrelid)), 0) FROM pg_index
    WHERE indrelid = 'emails'::regclass AND indexrelid <> 'emails_pkey'::regclass)::int AS other_index`;

/** What one call read of emails (its transaction's counters). */
const reads = (c: pg.PoolClient, call: () => Promise<unknown>) =>
  countersDuring<'seq' | 'other_index'>(c, COUNTERS, call);

before(async () => {
  db = await freshDatabase();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [team, 'plans']);
  await seedDomain(db.pool, { id: domain, teamId: team, name: 'plans.test' });
  await db.pool.query(`INSERT INTO broadcasts (id, team_id, status) VALUES ($1, $2, 'sending')`, [broadcast, team]);
});
after(async () => {
  await db?.drop();
});

test('the counter trigger keeps its generic plan and its planner settings', async () => {
  const { rows } = await db.pool.query<{ c: string[] }>(
    "SELECT proconfig AS c FROM pg_proc WHERE proname = 'email_events_count_rates'",
  );
  assert.deepEqual([...rows[0].c].sort(), [
    'enable_hashjoin=off',
    'enable_mergejoin=off',
    'enable_seqscan=off',
    'plan_cache_mode=force_generic_plan',
  ]);
});

test('delivery results and loads read emails by primary key after the table grows under kept plans', async () => {
  const early = await insertEmails(3_000, null);
  await db.pool.query('ANALYZE emails'); // statistics of a table with no broadcast copy yet
  const c = await db.pool.connect(); // one session: the plans it keeps
  try {
    // Plans made on the small table: more calls than the plan cache's five custom plans.
    for (let i = 0; i < 8; i++) {
      await emailEventsInsertMany(c, [{ events: [delivered(early[i])], lastEvent: 'delivered' }]);
      await emailsLoadForDelivery(c, [{ emailId: early[i + 8], recipients: ['r@y.test'], hashes: undefined }]);
    }
    // The table grows (as a broadcast's copies arrive) with no new statistics.
    const copies = await insertEmails(20_000, broadcast);
    await insertEmails(5_000, null);
    for (let i = 0; i < 3; i++) {
      const load = await reads(c, () =>
        emailsLoadForDelivery(c, [{ emailId: copies[i], recipients: ['r@y.test'], hashes: undefined }]),
      );
      assert.deepEqual(load, { seq: 0, other_index: 0 }, `load ${i + 1}: emails read by primary key only`);
      const results = await reads(c, () =>
        emailEventsInsertMany(c, [{ events: [delivered(copies[100 + i])], lastEvent: 'delivered' }]),
      );
      assert.deepEqual(results, { seq: 0, other_index: 0 }, `results ${i + 1}: emails read by primary key only`);
    }
  } finally {
    c.release();
  }
});

test('the webhook outbox read walks from its cursor after email_events grows under a kept plan', async () => {
  const { rows: some } = await db.pool.query<{ id: string }>('SELECT id FROM emails LIMIT 1');
  const addEvents = (n: number) =>
    db.pool.query(
      `INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
       SELECT gen_random_uuid(), $1, $2, 'email.delivered', 'r@y.test', '{}', now() FROM generate_series(1, $3)`,
      [some[0].id, team, n],
    );
  await addEvents(50);
  await db.pool.query('ANALYZE email_events');
  const c = await db.pool.connect();
  const EVENTS_READ = `SELECT coalesce(seq_scan, 0)::int AS seq FROM pg_stat_xact_user_tables WHERE relname = 'email_events'`;
  const read = async () => {
    await c.query('BEGIN');
    const before = (await c.query<{ seq: number }>(EVENTS_READ)).rows[0];
    const events = await webhookOutboxReadEmailEvents(c, 100);
    const after = (await c.query<{ seq: number }>(EVENTS_READ)).rows[0];
    if (events.length) {
      const last = events[events.length - 1];
      await c.query("UPDATE webhook_cursors SET last_txid = $1::xid8, last_seq = $2 WHERE source = 'email_events'", [
        last.txid,
        last.seq,
      ]);
    }
    await c.query('COMMIT');
    return { seq: after.seq - before.seq, events: events.length };
  };
  try {
    for (let i = 0; i < 8; i++) await read(); // plans made on the small table
    await addEvents(25_000);
    for (let i = 0; i < 3; i++) {
      const r = await read();
      assert.equal(r.events, 100);
      assert.equal(r.seq, 0, `read ${i + 1}: no sequential scan of email_events`);
    }
  } finally {
    c.release();
  }
});

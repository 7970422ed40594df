// Issue 27 (0082): an email's delivery result and a tracked open or click update the row in place
// of its indexes (HOT): no index of emails refers to last_event, and pages keep room for the new
// version. What read last_event through an index reads something else now: the list's status
// filter (the team's events of the status's type; scheduled_at) and a broadcast's pacing count
// (the copies not handed over to a delivery). Counted from the transaction's own statistics.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, seedDomain, type TestDatabase } from '../helpers/db.js';
import { countersDuring } from '../helpers/xact-counters.js';
import type { EventInsert } from '../../src/store/emails.js';
import { emailCount, emailList } from '../../src/store/emails.js';
import { emailEventsInsertMany } from '../../src/store/email-delivery.js';
import { emailEventsInsertTracked } from '../../src/store/tracking.js';
import { broadcastQueuedCount } from '../../src/store/broadcasts.js';

let db: TestDatabase;
const team = randomUUID();
const domain = randomUUID();

before(async () => {
  db = await freshDatabase();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [team, 'hot']);
  await seedDomain(db.pool, { id: domain, teamId: team, name: 'hot.test' });
});
after(async () => {
  await db.drop();
});

/** n emails in `status`, with the events that status comes from (email.sent first), newest last. */
async function emails(n: number, status: string, extra: { broadcast?: string; scheduled?: boolean } = {}) {
  const { rows } = await db.pool.query<{ id: string }>(
    `INSERT INTO emails (id, team_id, domain_id, message_id, from_header, to_addrs, subject, tags, last_event, broadcast_id, scheduled_at, created_at)
     SELECT gen_random_uuid(), $1, $2, '<' || gen_random_uuid() || '@hot.test>', 'a@hot.test', ARRAY['r' || i || '@y.test'],
       'Subject number ' || i, '[{"name": "kind", "value": "hot"}]', $4, $5, CASE WHEN $6 THEN now() + interval '1 day' END,
       now() - make_interval(secs => $3 - i)
     FROM generate_series(1, $3) i RETURNING id`,
    [team, domain, n, status, extra.broadcast ?? null, extra.scheduled ?? false],
  );
  const ids = rows.map((r) => r.id);
  await db.pool.query(
    `INSERT INTO email_events (id, email_id, team_id, type, data, created_at)
     SELECT gen_random_uuid(), e.id, e.team_id, t.type, '{}', e.created_at FROM emails e,
       unnest(CASE WHEN $2 IN ('sent', 'scheduled') THEN ARRAY['email.' || $2] ELSE ARRAY['email.sent', 'email.' || $2] END) AS t (type)
     WHERE e.id = ANY ($1::uuid[])`,
    [ids, status],
  );
  return ids;
}

const event = (email: string, type: string): EventInsert => ({
  id: randomUUID(),
  email_id: email,
  team_id: team,
  type,
  recipient: 'r@y.test',
  data: {},
  detail: null,
  created_at: new Date().toISOString(),
});

const HOT = `SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_xact_user_tables WHERE relname = 'emails'`;

test('no index of emails refers to last_event (its updates can be HOT)', async () => {
  const { rows } = await db.pool.query<{ name: string }>(
    `SELECT i.indexrelid::regclass::text AS name FROM pg_index i
     WHERE i.indrelid = 'emails'::regclass AND (
       (SELECT attnum FROM pg_attribute WHERE attrelid = 'emails'::regclass AND attname = 'last_event') = ANY (i.indkey::int2[])
       OR pg_get_indexdef(i.indexrelid) ~ 'last_event')`,
  );
  assert.deepEqual(
    rows.map((r) => r.name),
    [],
  );
  const { rows: opts } = await db.pool.query<{ o: string[] }>(
    `SELECT reloptions AS o FROM pg_class WHERE oid = 'emails'::regclass`,
  );
  assert.ok(opts[0].o?.includes('fillfactor=70'), String(opts[0].o));
});

test("a delivery result's update (last_event, insights, delayed_once) and a tracked open are HOT", async () => {
  // Recorded as the worker records them, two emails a statement. A page keeps 30% free (fillfactor
  // 70), room for the new versions of about 40% of its rows until their old versions are pruned
  // (which a transaction holding an older snapshot, as autovacuum's ANALYZE does, puts off): one
  // email in 8 is updated twice here, so the room suffices with or without a prune.
  const all = await emails(80, 'sent');
  const ids = all.filter((_, i) => i % 8 === 0);
  const c = await db.pool.connect();
  const sum = { n_tup_upd: 0, n_tup_hot_upd: 0 };
  const counted = async (call: () => Promise<unknown>) => {
    const d = await countersDuring<'n_tup_upd' | 'n_tup_hot_upd'>(c, HOT, call);
    sum.n_tup_upd += d.n_tup_upd;
    sum.n_tup_hot_upd += d.n_tup_hot_upd;
  };
  try {
    for (let i = 0; i < ids.length; i += 2)
      await counted(() =>
        emailEventsInsertMany(c, [
          { events: [event(ids[i], 'email.delivery_delayed')], lastEvent: 'delivery_delayed', markDelayed: true },
          {
            events: [event(ids[i + 1], 'email.delivered')],
            lastEvent: 'delivered',
            composed: [{ id: 'x', level: 'info' }],
          },
        ]),
      );
    assert.deepEqual(sum, { n_tup_upd: 10, n_tup_hot_upd: 10 });
    sum.n_tup_upd = sum.n_tup_hot_upd = 0;
    const delivered = ids.filter((_, i) => i % 2);
    for (let i = 0; i < delivered.length; i += 2)
      await counted(() =>
        emailEventsInsertTracked(
          c,
          delivered.slice(i, i + 2).map((id) => event(id, 'email.opened')),
        ),
      );
    assert.deepEqual(sum, { n_tup_upd: 5, n_tup_hot_upd: 5 });
  } finally {
    c.release();
  }
  const { rows } = await db.pool.query<{ last_event: string; n: number }>(
    'SELECT last_event, count(*)::int AS n FROM emails WHERE id = ANY ($1::uuid[]) GROUP BY 1 ORDER BY 1',
    [ids],
  );
  assert.deepEqual(rows, [
    { last_event: 'delivery_delayed', n: 5 },
    { last_event: 'opened', n: 5 },
  ]);
});

test('the status filter lists and counts exactly the emails in that status, reading few rows for a rare one', async () => {
  const made: Record<string, string[]> = {};
  for (const [status, n] of [
    ['delivered', 3000],
    ['bounced', 30],
    ['failed', 3],
    ['suppressed', 2],
    ['delivery_delayed', 12],
    ['canceled', 1],
    ['sent', 5],
  ] as const)
    made[status] = await emails(n, status);
  made.scheduled = await emails(4, 'scheduled', { scheduled: true });
  await db.pool.query('ANALYZE emails');
  await db.pool.query('ANALYZE email_events');
  const truth = async (status: string) =>
    (
      await db.pool.query<{ id: string }>(
        'SELECT id FROM emails WHERE team_id = $1 AND last_event = $2 ORDER BY created_at DESC, id DESC',
        [team, status],
      )
    ).rows.map((r) => r.id);
  const c = await db.pool.connect();
  try {
    for (const status of [
      'delivered',
      'bounced',
      'failed',
      'suppressed',
      'delivery_delayed',
      'canceled',
      'sent',
      'scheduled',
    ]) {
      const want = await truth(status);
      assert.ok(want.length > 0, status);
      const page = await emailList(c, team, { limit: 50 }, { status });
      assert.deepEqual(
        page.data.map((e) => e.id),
        want.slice(0, 50),
        status,
      );
      assert.deepEqual(await emailCount(c, team, { status }, 10_000), { count: want.length, capped: false }, status);
    }
    // A rare status among 3,000 delivered: its events are found by type, not the team's list read through.
    for (const status of ['failed', 'canceled', 'scheduled']) {
      const read = await countersDuring<'fetched' | 'seq'>(
        c,
        `SELECT coalesce(sum(idx_tup_fetch), 0)::int AS fetched, coalesce(sum(seq_tup_read), 0)::int AS seq
         FROM pg_stat_xact_user_tables WHERE relname = 'emails'`,
        () => emailList(c, team, { limit: 50 }, { status }),
      );
      assert.ok(read.fetched <= 20 && read.seq === 0, `${status}: ${JSON.stringify(read)}`);
    }
  } finally {
    c.release();
  }
});

test("a broadcast's pacing counts the copies no delivery has taken", async () => {
  const broadcast = randomUUID();
  await db.pool.query(
    `INSERT INTO broadcasts (id, team_id, name, from_header, subject, status) VALUES ($1, $2, 'b', 'a@hot.test', 's', 'sending')`,
    [broadcast, team],
  );
  const copies = await emails(10, 'sent', { broadcast });
  assert.equal(await broadcastQueuedCount(db.pool, broadcast, 100), 10);
  assert.equal(await broadcastQueuedCount(db.pool, broadcast, 4), 4);
  await db.pool.query('UPDATE emails SET handed_over_at = now() WHERE id = ANY ($1::uuid[])', [copies.slice(0, 3)]);
  assert.equal(await broadcastQueuedCount(db.pool, broadcast, 100), 7);
});

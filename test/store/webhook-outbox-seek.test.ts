// The webhook dispatcher's reads start at its cursor: with 20,000 events behind the cursor, a pass
// and the "anything waiting?" look fetch a handful of rows, not every event from the oldest (they
// did, as a join filter: 49 ms a pass at 80,000 events, growing with the table).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { withTx } from '../../src/store/db.js';
import { webhookOutboxHasWaiting, webhookOutboxReadEmailEvents } from '../../src/store/webhook-outbox.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db?.drop();
});

/** Rows the transaction's statements read from email_events (through indexes or sequentially). */
const eventsRead = async (q: (sql: string) => Promise<{ rows: { n: number }[] }>) =>
  (
    await q(
      `SELECT (coalesce(idx_tup_fetch, 0) + coalesce(seq_tup_read, 0))::int AS n FROM pg_stat_xact_user_tables WHERE relname = 'email_events'`,
    )
  ).rows[0].n;

test('a dispatcher pass and the waiting look read from the cursor on, whatever lies behind it', async () => {
  const team = (
    await db.pool.query<{ id: string }>(`INSERT INTO teams (id, name) VALUES ($1, 'T') RETURNING id`, [randomUUID()])
  ).rows[0].id;
  const email = randomUUID();
  await db.pool.query(
    `INSERT INTO emails (id, team_id, message_id, from_header, to_addrs, subject, last_event) VALUES ($1, $2, '<m@x>', 'a@x.test', '{b@y.test}', 's', 'sent')`,
    [email, team],
  );
  const events = (n: number) =>
    db.pool.query(
      `INSERT INTO email_events (id, email_id, team_id, type, data) SELECT gen_random_uuid(), $1, $2, 'email.sent', '{}' FROM generate_series(1, $3)`,
      [email, team, n],
    );
  await events(20_000);
  // The dispatcher has passed them all.
  await db.pool.query(
    `UPDATE webhook_cursors SET (last_txid, last_seq) = (SELECT txid, seq FROM email_events ORDER BY txid DESC, seq DESC LIMIT 1) WHERE source = 'email_events'`,
  );
  await db.pool.query('ANALYZE email_events');

  await withTx(db.pool, async (tx) => {
    assert.deepEqual(await webhookOutboxReadEmailEvents(tx, 1_000), []);
    assert.equal(await webhookOutboxHasWaiting(tx), false);
    const read = await eventsRead((sql) => tx.query(sql));
    assert.ok(read <= 10, `rows of email_events read with nothing past the cursor: ${read}`);
  });
  await events(30);
  await withTx(db.pool, async (tx) => {
    assert.equal(await webhookOutboxHasWaiting(tx), true);
    assert.equal((await webhookOutboxReadEmailEvents(tx, 1_000)).length, 30);
    const read = await eventsRead((sql) => tx.query(sql));
    assert.ok(read <= 70, `rows of email_events read for 30 new events: ${read}`);
  });
});

// A receipt accepted while a broadcast's copies wait for delivery overtakes them: the copies are due
// at once (an idle worker sends them straight away), and what keeps receipts fast is that the
// broadcast's batches have a worker of their own and the lowest priority. Capture mode; pages of
// 2,000 so that thousands of copies wait at once, whatever the machine's load.
// What is asserted is an order, not a speed: the moment the receipt's delivery job is claimed, a
// test-only trigger on jobs notes which broadcast copies are still due and unclaimed. Claimed in
// run_at order behind them (one queue, one priority), the receipt could only be claimed once every
// copy accepted before it had been claimed: none of those would still be waiting. A comparison of
// delivery times instead (how many copies were delivered after the receipt) moved with the load.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { until } from '../helpers/until.js';
import { DELIVERY_BATCH } from '../../src/store/jobs.js';

let t: CaptureApp;
before(async () => {
  t = await startCaptureApp({
    broadcastPageSize: 2_000,
    broadcastQueueWindow: 5_000,
    broadcastPauseMinSample: 1_000_000,
  });
});
after(async () => {
  await t?.close();
});

// The broadcast's copies due and not yet taken by a worker (a batch job carries a run of them: payload.emails).
const WAITING = `SELECT coalesce(e->>0, payload->>'email_id') AS id FROM jobs LEFT JOIN LATERAL jsonb_array_elements(payload->'emails') e ON true
  WHERE kind IN ('email.deliver', 'email.deliver_batch') AND priority = 2 AND run_at <= now() AND locked_by IS NULL`;

test('a transactional email accepted behind a backlog of due broadcast copies is claimed while they still wait', async () => {
  // Instrumentation, not behaviour: each claim of a single delivery job (the receipt's kind) writes
  // down which broadcast copies were due and unclaimed at that moment.
  await t.db.pool.query(`
    CREATE TABLE test_claims_seen (email_id text, waiting text[]);
    CREATE FUNCTION test_claim_seen() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO test_claims_seen SELECT NEW.payload->>'email_id', coalesce(array_agg(w.id), '{}') FROM (${WAITING}) w;
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_claim_seen AFTER UPDATE OF locked_by ON jobs FOR EACH ROW
      WHEN (NEW.kind = 'email.deliver' AND OLD.locked_by IS NULL AND NEW.locked_by IS NOT NULL) EXECUTE FUNCTION test_claim_seen();`);
  // Setup only: 4,000 members in one statement.
  const many = (await t.resend.segments.create({ name: 'Many' })).data!.id;
  await t.db.pool.query(
    `WITH c AS (INSERT INTO contacts (id, team_id, email, created_at)
       SELECT gen_random_uuid(), $1, 'many' || i || '@dest.test', now() - ((4000 - i) * interval '1 millisecond') FROM generate_series(1, 4000) AS i RETURNING id)
     INSERT INTO contact_segments (contact_id, segment_id) SELECT id, $2 FROM c`,
    [t.app.defaultTeamId, many],
  );
  const b = await t.resend.broadcasts.create({
    segmentId: many,
    from: 'News <news@example.com>',
    subject: 'Bulk',
    text: 'bulk',
    send: true,
  });
  assert.equal(b.error, null, JSON.stringify(b.error));
  const waiting = async () => (await t.db.pool.query<{ id: string }>(WAITING)).rows.map((r) => r.id);
  await until('a backlog of broadcast copies', async () => (await waiting()).length >= 500, 60_000);
  const urgent = await t.send({ to: 'urgent@dest.test', subject: 'Your code' });
  const seen = await until(
    'the receipt claimed',
    async () =>
      (
        await t.db.pool.query<{ waiting: string[] }>('SELECT waiting FROM test_claims_seen WHERE email_id = $1', [
          urgent,
        ])
      ).rows[0],
    60_000,
  );
  // Copies accepted before the receipt (created before it) still waiting when it was claimed.
  const {
    rows: [older],
  } = await t.db.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM emails WHERE id = ANY($1::uuid[]) AND created_at < (SELECT created_at FROM emails WHERE id = $2)`,
    [seen.waiting, urgent],
  );
  // In one queue in run_at order, no older copy could still be due and unclaimed; claims running
  // at the same moment in other transactions could hide a few batches (DELIVERY_BATCH copies
  // each) from the claim, hence a margin of 10 batches rather than 1 copy.
  assert.ok(
    older.n > 10 * DELIVERY_BATCH,
    `${older.n} copies accepted before the receipt were still waiting when it was claimed`,
  );
  await until(
    'the receipt delivered',
    async () => (await t.resend.emails.get(urgent)).data?.last_event === 'delivered',
    60_000,
  );
});

// A receipt accepted while a broadcast's copies wait for delivery overtakes them: the copies are due
// at once (an idle worker sends them straight away), and what keeps receipts fast is that the
// broadcast's batches have a worker of their own and the lowest priority. Capture mode; pages of
// 2,000 so that thousands of copies wait at once, whatever the machine's load.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { until } from '../helpers/until.js';

let t: CaptureApp;
before(async () => { t = await startCaptureApp({ broadcastPageSize: 2_000, broadcastQueueWindow: 5_000, broadcastPauseMinSample: 1_000_000 }); });
after(async () => { await t?.close(); });

test('a transactional email accepted behind a backlog of due broadcast copies overtakes it', async () => {
  // Setup only: 4,000 members in one statement.
  const many = (await t.resend.segments.create({ name: 'Many' })).data!.id;
  await t.db.pool.query(
    `WITH c AS (INSERT INTO contacts (id, team_id, email, created_at)
       SELECT gen_random_uuid(), $1, 'many' || i || '@dest.test', now() - ((4000 - i) * interval '1 millisecond') FROM generate_series(1, 4000) AS i RETURNING id)
     INSERT INTO contact_segments (contact_id, segment_id) SELECT id, $2 FROM c`, [t.app.defaultTeamId, many]);
  const b = (await t.resend.broadcasts.create({ segmentId: many, from: 'News <news@example.com>', subject: 'Bulk', text: 'bulk', send: true })).data!.id;
  // The copies due and not yet taken by a worker (a batch job carries a run of them: payload.emails).
  const waiting = async () => (await t.db.pool.query<{ id: string }>(
    `SELECT coalesce(e->>0, payload->>'email_id') AS id FROM jobs LEFT JOIN LATERAL jsonb_array_elements(payload->'emails') e ON true
     WHERE kind IN ('email.deliver', 'email.deliver_batch') AND priority = 2 AND run_at <= now() AND locked_by IS NULL`)).rows.map((r) => r.id);
  await until('a backlog of broadcast copies', async () => (await waiting()).length >= 500, 60_000);
  const urgent = await t.send({ to: 'urgent@dest.test', subject: 'Your code' });
  const backlog = await waiting();
  await until('every delivery', async () => (await t.resend.broadcasts.get(b)).data!.stats.delivered === 4000, 120_000);
  const { rows: [r] } = await t.db.pool.query<{ after: number }>(
    `SELECT count(*)::int AS after FROM email_events ev
     WHERE ev.email_id = ANY($2::uuid[]) AND ev.type = 'email.delivered'
       AND ev.created_at > (SELECT created_at FROM email_events WHERE email_id = $1 AND type = 'email.delivered')`, [urgent, backlog]);
  // Claimed in run_at order among the broadcast's, the receipt would have waited for the whole
  // backlog (none of it delivered after the receipt).
  assert.ok(backlog.length >= 400, `copies waiting when the receipt was accepted: ${backlog.length}`);
  assert.ok(r.after >= backlog.length / 2, `${r.after} of the ${backlog.length} broadcast copies waiting when the receipt was accepted were delivered after it`);
});

// Pause, resume and cancel racing a broadcast's delivery (issue 24): twenty calls at once over HTTP,
// several of them cancels, while a broadcast to 1,000 contacts (paced: a window of 400 copies) is
// delivered to a recording MX; three rounds. Every answer is a 200 or a 422 naming the status;
// every email ends exactly once (delivered, or canceled, never both); the stats add up to the
// recipients; the MX got each delivered copy once and no canceled one. Before the fix each round
// ended 160-200 of ~500 copies both delivered and canceled.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startMailWorld, type MailWorld } from '../helpers/mail-world.js';
import { until } from '../helpers/until.js';

const RECIPIENTS = 1_000;
const ROUNDS = 3;
// Mostly pauses and resumes, with a cancel in every fifth place: some land while it is paused,
// some while it is sending, and all but the first find it canceled.
const CALLS = Array.from({ length: 20 }, (_, i) => (i % 5 === 3 ? 'cancel' : i % 2 === 0 ? 'pause' : 'resume'));

let w: MailWorld;
before(async () => {
  w = await startMailWorld({ broadcastPageSize: 100, broadcastQueueWindow: 400, broadcastPauseMinSample: 1_000_000 });
  w.mx.delayMs = 2; // a little time per copy, so that runs of copies are in flight when the calls land
});
after(async () => {
  await w?.close();
});

/** Setup only: a segment of RECIPIENTS contacts at dest.test, inserted in one statement. */
async function segment(round: number): Promise<string> {
  const seg = (await w.t.resend.segments.create({ name: `Race ${round}` })).data!.id;
  await w.t.db.pool.query(
    `WITH c AS (INSERT INTO contacts (id, team_id, email, created_at)
       SELECT gen_random_uuid(), $1, 'r' || $3::int || '-' || i || '@dest.test', now() - ((${RECIPIENTS} - i) * interval '1 millisecond')
       FROM generate_series(1, ${RECIPIENTS}) AS i RETURNING id)
     INSERT INTO contact_segments (contact_id, segment_id) SELECT id, $2 FROM c`,
    [w.t.app.defaultTeamId, seg, round],
  );
  return seg;
}

test('twenty concurrent pause, resume and cancel calls on a sending broadcast end every email exactly once', async () => {
  for (let round = 1; round <= ROUNDS; round++) {
    const seg = await segment(round);
    const b = await w.t.resend.broadcasts.create({
      segmentId: seg,
      from: 'News <news@example.com>',
      subject: 'Race',
      text: 'race',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    const id = b.data!.id;
    const mine = (m: { rcptTo: string[] }) => m.rcptTo[0].startsWith(`r${round}-`);
    await until('copies being delivered', async () => w.mx.messages.filter(mine).length >= 100, 30_000);

    const answers = await Promise.all(
      CALLS.map(async (action) => ({ action, ...(await w.t.api('POST', `/broadcasts/${id}/${action}`)) })),
    );
    for (const a of answers) {
      assert.ok(
        a.status === 200 || (a.status === 422 && /this broadcast is \w+/.test(a.body.message)),
        `round ${round}: ${a.action} answered ${a.status} ${JSON.stringify(a.body)}`,
      );
    }
    assert.equal(
      answers.filter((a) => a.action === 'cancel' && a.status === 200).length,
      1,
      `round ${round}: one cancel went through: ${JSON.stringify(answers.map((a) => `${a.action} ${a.status}`))}`,
    );

    // Settled: no delivery job of the broadcast left, and no email still waiting.
    await until(
      'the deliveries in flight to end',
      async () => {
        const {
          rows: [r],
        } = await w.t.db.pool.query<{ jobs: number; waiting: number }>(
          `SELECT (SELECT count(*) FROM jobs WHERE kind IN ('email.deliver', 'email.deliver_batch') AND payload->>'broadcast_id' = $1)::int AS jobs,
                (SELECT count(*) FROM emails WHERE broadcast_id = $1::uuid AND last_event IN ('sent', 'delivery_delayed'))::int AS waiting`,
          [id],
        );
        return r.jobs === 0 && r.waiting === 0;
      },
      30_000,
    );

    const got = (await w.t.resend.broadcasts.get(id)).data! as any;
    assert.equal(got.status, 'canceled');
    const { rows: ends } = await w.t.db.pool.query<{
      email_id: string;
      address: string;
      types: string[];
      last_event: string;
    }>(
      `SELECT e.id AS email_id, e.to_addrs[1] AS address, e.last_event,
              coalesce(array_agg(ev.type ORDER BY ev.type) FILTER (WHERE ev.type IS NOT NULL), '{}') AS types
       FROM emails e LEFT JOIN email_events ev ON ev.email_id = e.id
         AND ev.type IN ('email.delivered', 'email.bounced', 'email.failed', 'email.suppressed', 'email.canceled')
       WHERE e.broadcast_id = $1::uuid GROUP BY e.id`,
      [id],
    );
    const twice = ends.filter((e) => e.types.length !== 1);
    assert.deepEqual(twice.slice(0, 5), [], `round ${round}: ${twice.length} emails without exactly one end`);
    const delivered = ends.filter((e) => e.types[0] === 'email.delivered');
    const canceled = ends.filter((e) => e.types[0] === 'email.canceled');
    assert.ok(
      delivered.every((e) => e.last_event === 'delivered') && canceled.every((e) => e.last_event === 'canceled'),
      `round ${round}: last_event agrees with the events`,
    );
    assert.equal(got.stats.recipients, ends.length);
    assert.equal(
      got.stats.delivered + got.stats.canceled + got.stats.bounced + got.stats.failed + got.stats.suppressed,
      got.stats.recipients,
      `round ${round}: ${JSON.stringify(got.stats)}`,
    );
    assert.ok(canceled.length > 0, `round ${round}: the cancel came before the end (${delivered.length} delivered)`);

    const received = w.mx.messages
      .filter(mine)
      .flatMap((m) => m.rcptTo)
      .sort();
    assert.deepEqual(
      received,
      delivered.map((e) => e.address).sort(),
      `round ${round}: the MX got each delivered copy once and no canceled one`,
    );
  }
});

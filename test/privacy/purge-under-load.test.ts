// Issue 29, "retention purges tested under a running load": while sends keep flowing (the real SDK
// against the API, each delivered by the worker in capture mode), the privacy.purge job runs
// against a team with short retention (events 3 days, tracking 1 day) and a backlog of tens of
// thousands of old events, three batches deep. The 5-day-old events all go; the 2-day-old
// opens stay with their IP and user agent stripped; every recent event stays; no send fails and
// every email sent meanwhile is delivered with its events; sends go on while the purge works.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { until } from '../helpers/until.js';
import { JOBS_CHANNEL, PRIVACY_RETENTION_JOB } from '../../src/store/jobs.js';

let t: CaptureApp;
before(async () => {
  t = await startCaptureApp({ rateLimit: 100_000 });
});
after(() => t?.close());

const count = async (sql: string, params: unknown[] = []) => Number((await t.db.pool.query(sql, params)).rows[0].n);

test('privacy.purge under a running send load: old rows go, recent ones all stay, no send fails', async () => {
  const team = t.app.defaultTeamId;
  const set = await t.api('PATCH', '/privacy/retention', { body: { events_days: 3, tracking_days: 1 } });
  assert.equal(set.status, 200, JSON.stringify(set.body));

  // A backlog: 20 delivered emails whose events are copied 400 times, 5 days back (> 3 batches of
  // 5,000), and 2-day-old opens carrying an IP address and a user agent.
  const seed: string[] = [];
  for (let i = 0; i < 20; i++) seed.push(await t.send({ to: `old-${i}@dest.test` }));
  await until(
    'the seed emails delivered',
    async () =>
      (await count("SELECT count(*) AS n FROM emails WHERE id = ANY($1) AND last_event = 'delivered'", [seed])) === 20,
  );
  await t.db.pool.query(
    `INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
     SELECT gen_random_uuid(), e.email_id, e.team_id, e.type, e.recipient, e.data, now() - interval '5 days'
     FROM email_events e, generate_series(1, 400) WHERE e.email_id = ANY($1)`,
    [seed],
  );
  await t.db.pool.query(
    `INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
     SELECT gen_random_uuid(), id, team_id, 'email.opened', to_addrs[1],
       jsonb_build_object('open', jsonb_build_object('ipAddress', '203.0.113.9', 'userAgent', 'UA/1.0')),
       now() - interval '2 days'
     FROM emails WHERE id = ANY($1)`,
    [seed],
  );
  const old = "SELECT count(*) AS n FROM email_events WHERE team_id = $1 AND created_at < now() - interval '4 days'";
  const oldBefore = await count(old, [team]);
  assert.ok(oldBefore > 15_000, `${oldBefore} old events: several batches of 5,000`);
  const recentOfSeed = async () =>
    (
      await t.db.pool.query(
        `SELECT type, count(*)::int AS n FROM email_events
         WHERE email_id = ANY($1) AND created_at > now() - interval '1 hour' GROUP BY type ORDER BY type`,
        [seed],
      )
    ).rows;
  const recentBefore = await recentOfSeed();

  // The load: four senders, each send awaited, until told to stop.
  const sent: string[] = [];
  const failures: string[] = [];
  let stop = false;
  const sender = async (n: number) => {
    for (let i = 0; !stop && i < 2000; i++) {
      const r = await t.resend.emails.send({
        from: 'Acme <hello@example.com>',
        to: `load-${n}-${i}@dest.test`,
        subject: `Load ${n}/${i}`,
        html: '<p>Hi</p>',
      });
      if (r.error || !r.data) failures.push(JSON.stringify(r.error));
      else sent.push(r.data.id);
    }
  };
  const load = Promise.all([0, 1, 2, 3].map(sender));
  try {
    await until('the load under way', async () => sent.length >= 20, 30_000);
    const atStart = sent.length;
    await t.db.pool.query('UPDATE jobs SET run_at = now() WHERE kind = $1', [PRIVACY_RETENTION_JOB]);
    await t.db.pool.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, PRIVACY_RETENTION_JOB]);
    await until('the old events purged', async () => (await count(old, [team])) === 0, 120_000);
    const during = sent.length - atStart;
    // A few more sends after the purge, then stop.
    const atEnd = sent.length;
    await until('sends after the purge', async () => sent.length >= atEnd + 10, 30_000);
    stop = true;
    await load;
    assert.ok(during > 0, 'sends completed while the purge ran');
  } finally {
    stop = true;
    await load;
  }
  assert.deepEqual(failures, [], 'no send failed');
  assert.ok(sent.length >= 40, `${sent.length} sends`);

  // Every email sent under load is delivered, with its events.
  await until(
    'every load email delivered',
    async () =>
      (await count("SELECT count(*) AS n FROM emails WHERE id = ANY($1) AND last_event = 'delivered'", [sent])) ===
      sent.length,
    60_000,
  );
  const withEvents = await count(
    `SELECT count(*) AS n FROM emails e WHERE e.id = ANY($1)
       AND EXISTS (SELECT 1 FROM email_events v WHERE v.email_id = e.id AND v.type = 'email.sent')
       AND EXISTS (SELECT 1 FROM email_events v WHERE v.email_id = e.id AND v.type = 'email.delivered')`,
    [sent],
  );
  assert.equal(withEvents, sent.length, 'each load email keeps its sent and delivered events');
  // The seed's own recent events stay too; the 2-day-old opens stay, stripped of tracking data.
  assert.deepEqual(await recentOfSeed(), recentBefore);
  const opens = await t.db.pool.query(
    "SELECT data->'open' AS open FROM email_events WHERE email_id = ANY($1) AND created_at < now() - interval '1 day'",
    [seed],
  );
  assert.equal(opens.rowCount, 20, 'the 2-day-old opens stay (events are kept 3 days)');
  for (const r of opens.rows) assert.deepEqual([r.open.ipAddress ?? null, r.open.userAgent ?? null], [null, null]);
  const errors = await t.db.pool.query(
    "SELECT kind, last_error FROM jobs WHERE last_error IS NOT NULL AND kind IN ('privacy.purge', 'email.deliver')",
  );
  assert.deepEqual(errors.rows, []);
});

// GET/PATCH /privacy/retention (issue 29): per-team days per kind of data, the global settings as
// the ceiling (422 above), and the recurring purges honouring a team's setting: its old rows go,
// another team's rows of the same age stay.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { Resend } from 'resend';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { until } from '../../helpers/until.js';
import { closeAll } from '../../helpers/close-all.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { teamCreate } from '../../../src/store/teams.js';
import {
  EMAIL_RETENTION_JOB,
  JOBS_CHANNEL,
  PRIVACY_RETENTION_JOB,
  REQUEST_LOG_RETENTION_JOB,
  WEBHOOK_RETENTION_JOB,
} from '../../../src/store/jobs.js';

describe('/privacy/retention', () => {
  let t: CaptureApp;
  let keyB: string;
  let teamA: string;
  let teamB: string;
  let b: Resend;
  let domainB: string;
  let rcv: Receiver;

  before(async () => {
    t = await startCaptureApp({ rateLimit: 1000, logRetentionDays: 60, allowPrivateNetworks: true });
    rcv = await startReceiver();
    teamA = t.app.defaultTeamId;
    teamB = (await teamCreate(t.db.pool, 'B')).id;
    keyB = (await t.app.apiKeys.create(teamB, { name: 'b' })).token;
    b = new Resend(keyB, { baseUrl: t.url });
    const domB = await b.domains.create({ name: 'b.example' });
    assert.equal(domB.error, null, JSON.stringify(domB.error));
    await b.domains.verify(domB.data!.id);
    domainB = domB.data!.id;
    // Before any send: the send path caches a domain's settings for a few seconds.
    for (const [id, key] of [
      [t.domainId, undefined],
      [domainB, keyB],
    ] as const) {
      const d = await t.api('PATCH', `/domains/${id}`, { key, body: { open_tracking: true } });
      assert.equal(d.status, 200, JSON.stringify(d.body));
    }
  });
  after(() =>
    closeAll(
      () => t.close(),
      () => rcv.close(),
    ),
  );

  test('answers the defaults, with the global settings as the maximum', async () => {
    const r = await t.api('GET', '/privacy/retention');
    assert.equal(r.status, 200);
    assert.equal(r.body.object, 'privacy_retention');
    assert.equal(r.body.email_bodies_days, 30);
    assert.equal(r.body.received_emails_days, 30);
    assert.equal(r.body.request_logs_days, 60);
    assert.equal(r.body.webhook_payloads_days, 60);
    assert.equal(r.body.tracking_days, null);
    assert.equal(r.body.events_days, null);
    assert.equal(r.body.automation_runs_days, null);
    assert.deepEqual(r.body.custom, []);
    assert.equal(r.body.maximum.request_logs_days, 60);
    assert.equal(r.body.maximum.tracking_days, 3650);
  });

  test('refuses a value above the ceiling, below one day, not whole, or an unknown field (422 naming it)', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ request_logs_days: 61 }, /request_logs_days.*at most 60/],
      [{ email_bodies_days: 31 }, /email_bodies_days.*at most 30/],
      [{ tracking_days: 3651 }, /tracking_days.*at most 3650/],
      [{ events_days: 0 }, /events_days/],
      [{ events_days: 1.5 }, /events_days/],
      [{ events_days: '7' }, /events_days/],
      [{ kept_forever_days: 3 }, /kept_forever_days/],
    ];
    for (const [body, message] of cases) {
      const r = await t.api('PATCH', '/privacy/retention', { body });
      assert.equal(r.status, 422, JSON.stringify([body, r.body]));
      assert.match(r.body.message, message);
    }
    assert.equal((await t.api('GET', '/privacy/retention')).body.custom.length, 0, 'nothing was stored');
  });

  test('is for full-access keys only', async () => {
    const k = (await t.resend.apiKeys.create({ name: 'send', permission: 'sending_access' })).data!.token;
    assert.equal((await t.api('GET', '/privacy/retention', { key: k })).status, 401);
    assert.equal((await t.api('PATCH', '/privacy/retention', { key: k, body: { events_days: 2 } })).status, 401);
  });

  test("a team's setting purges its old rows and not another team's", async () => {
    const set = await t.api('PATCH', '/privacy/retention', {
      body: { request_logs_days: 2, email_bodies_days: 2, events_days: 2, tracking_days: 1, webhook_payloads_days: 2 },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.request_logs_days, 2);
    assert.equal(set.body.events_days, 2);
    assert.deepEqual(set.body.custom.sort(), [
      'email_bodies_days',
      'events_days',
      'request_logs_days',
      'tracking_days',
      'webhook_payloads_days',
    ]);
    for (const client of [t.resend, b])
      assert.equal((await client.webhooks.create({ endpoint: rcv.url, events: ['email.sent'] })).error, null);
    const reset = await t.api('PATCH', '/privacy/retention', { body: { tracking_days: null } });
    assert.equal(reset.body.tracking_days, null);
    assert.equal((await t.api('GET', '/privacy/retention', { key: keyB })).body.custom.length, 0, "B's are its own");

    // Both teams: an email (raw MIME, bodies, events), a custom event, request logs.
    const idA = await t.send({ to: 'a@dest.test', html: '<p>for A</p>' });
    const sentB = await b.emails.send({ from: 'x@b.example', to: ['b@dest.test'], subject: 's', html: '<p>for B</p>' });
    assert.equal(sentB.error, null, JSON.stringify(sentB.error));
    const idB = sentB.data!.id;
    assert.equal((await t.resend.events.send({ event: 'visit', email: 'a@dest.test' })).error, null);
    assert.equal((await b.events.send({ event: 'visit', email: 'b@dest.test' })).error, null);
    await until('both delivered (captured)', async () => {
      const { rows } = await t.db.pool.query(
        "SELECT count(*)::int AS n FROM email_events WHERE type = 'email.delivered' AND email_id = ANY($1::uuid[])",
        [[idA, idB]],
      );
      return rows[0].n === 2;
    });
    await until('both webhook messages delivered', async () => {
      const { rows } = await t.db.pool.query(
        "SELECT count(DISTINCT team_id)::int AS n FROM webhook_messages WHERE status = 'success'",
      );
      return rows[0].n === 2;
    });
    await t.app.requestLogs!.flush();
    // Five days old, all of it (older than both teams' limits? only A's: B keeps the global 30 and 60).
    for (const table of ['request_logs', 'emails', 'email_events', 'custom_events', 'webhook_messages'])
      await t.db.pool.query(`UPDATE ${table} SET created_at = now() - interval '5 days'`);
    const count = async (table: string, team: string, extra = 'true') =>
      (await t.db.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE team_id = $1 AND (${extra})`, [team]))
        .rows[0].n as number;
    assert.ok((await count('request_logs', teamA)) > 0);
    assert.ok((await count('request_logs', teamB)) > 0);
    const eventsB = await count('email_events', teamB);
    const logsB = await count('request_logs', teamB);

    // The recurring purges, due now.
    await t.db.pool.query('UPDATE jobs SET run_at = now() WHERE kind = ANY($1::text[])', [
      [REQUEST_LOG_RETENTION_JOB, EMAIL_RETENTION_JOB, PRIVACY_RETENTION_JOB, WEBHOOK_RETENTION_JOB],
    ]);
    for (const k of [REQUEST_LOG_RETENTION_JOB, EMAIL_RETENTION_JOB, PRIVACY_RETENTION_JOB, WEBHOOK_RETENTION_JOB])
      await t.db.pool.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, k]);
    const left = async () => ({
      request_logs: await count('request_logs', teamA, "created_at < now() - interval '4 days'"),
      email_events: await count('email_events', teamA),
      custom_events: await count('custom_events', teamA),
      emails: await count('emails', teamA, 'raw IS NOT NULL OR html IS NOT NULL'),
      webhook_messages: await count('webhook_messages', teamA),
    });
    const none = { request_logs: 0, email_events: 0, custom_events: 0, emails: 0, webhook_messages: 0 };
    await until(
      "team A's old rows purged",
      async () => JSON.stringify(await left()) === JSON.stringify(none),
      20_000,
    ).catch(async (err) => {
      const jobs = await t.db.pool.query('SELECT kind, run_at, last_error FROM jobs WHERE every_ms IS NOT NULL');
      throw new Error(`${err.message}: ${JSON.stringify(await left())} ${JSON.stringify(jobs.rows)}`);
    });
    assert.equal(await count('email_events', teamB), eventsB, "B's events stay");
    assert.equal(await count('custom_events', teamB), 1, "B's custom event stays");
    assert.ok((await count('webhook_messages', teamB)) > 0, "B's webhook payloads stay");
    assert.ok((await count('webhook_attempts', teamB)) > 0);
    assert.equal(await count('webhook_attempts', teamA), 0, "A's payloads went with their messages");
    assert.equal(await count('request_logs', teamB, "created_at < now() - interval '4 days'"), logsB, "B's logs stay");
    assert.equal(await count('emails', teamB, 'raw IS NOT NULL AND html IS NOT NULL'), 1, "B's email keeps its bodies");
    assert.equal((await t.resend.emails.get(idA)).data!.html, null);
  });
  test("tracking data and finished automation runs: a team's setting strips and drops its own only", async () => {
    const set = await t.api('PATCH', '/privacy/retention', {
      body: { events_days: null, tracking_days: 1, automation_runs_days: 1 },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const opened: Record<string, string> = {};
    for (const [who, client, to] of [
      ['A', t.resend, 'a@dest.test'],
      ['B', b, 'b@dest.test'],
    ] as const) {
      const from = who === 'A' ? 'shop@example.com' : 'x@b.example';
      const sent = await client.emails.send({ from, to: [to], subject: 'o', html: '<p>open me</p>' });
      assert.equal(sent.error, null, JSON.stringify(sent.error));
      const id = sent.data!.id;
      const raw = await until('stored', async () => {
        const { rows } = await t.db.pool.query('SELECT raw FROM emails WHERE id = $1 AND raw IS NOT NULL', [id]);
        return rows[0]?.raw as Buffer | undefined;
      });
      const html = (await simpleParser(raw)).html as string;
      const url = /src="([^"]+\/t\/o\/[^"]+)"/.exec(html)?.[1];
      assert.ok(url, html);
      assert.equal(
        (await fetch(url.replace(t.app.config.publicUrl, t.url), { headers: { 'user-agent': `UA-${who}` } })).status,
        200,
      );
      await until(`${who}'s open`, async () => {
        const { rows } = await t.db.pool.query(
          "SELECT 1 FROM email_events WHERE email_id = $1 AND type = 'email.opened'",
          [id],
        );
        return rows.length > 0;
      });
      opened[who] = id;
      const auto = await client.automations.create({
        name: 'On signup',
        status: 'enabled',
        steps: [
          { key: 't', type: 'trigger', config: { eventName: 'signup' } },
          { key: 'u', type: 'contact_update', config: { first_name: 'New' } },
        ],
        connections: [{ from: 't', to: 'u' }],
      } as never);
      assert.equal(auto.error, null, JSON.stringify(auto.error));
      assert.equal((await client.events.send({ event: 'signup', email: to })).error, null);
      await until(`${who}'s run to end`, async () => {
        const { rows } = await t.db.pool.query(
          "SELECT 1 FROM automation_runs WHERE automation_id = $1 AND status <> 'running'",
          [auto.data!.id],
        );
        return rows.length > 0;
      });
    }
    await t.db.pool.query("UPDATE email_events SET created_at = now() - interval '3 days' WHERE type = 'email.opened'");
    await t.db.pool.query("UPDATE automation_runs SET created_at = now() - interval '3 days'");
    await t.db.pool.query('UPDATE jobs SET run_at = now() WHERE kind = $1', [PRIVACY_RETENTION_JOB]);
    await t.db.pool.query('SELECT pg_notify($1, $2)', [JOBS_CHANNEL, PRIVACY_RETENTION_JOB]);
    const openOf = async (id: string) =>
      (
        await t.db.pool.query(
          "SELECT data->'open' AS open FROM email_events WHERE email_id = $1 AND type = 'email.opened'",
          [id],
        )
      ).rows[0]?.open as { ipAddress: string | null; userAgent: string | null } | undefined;
    const runs = async (team: string) =>
      (await t.db.pool.query('SELECT count(*)::int AS n FROM automation_runs WHERE team_id = $1', [team])).rows[0]
        .n as number;
    await until(
      "A's tracking data and runs purged",
      async () => (await openOf(opened.A))?.userAgent === null && (await runs(teamA)) === 0,
      20_000,
    );
    assert.deepEqual(await openOf(opened.A).then((o) => [o!.ipAddress, o!.userAgent]), [null, null], 'the open stays');
    assert.equal((await openOf(opened.B))!.userAgent, 'UA-B', "B's tracking data stays");
    assert.equal(await runs(teamB), 1, "B's run stays");
  });
});

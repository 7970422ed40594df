import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { emailMetricsRollup, emailMetricsRolledUntil } from '../../../src/store/email-metrics.js';

async function until<T>(fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('GET /emails/metrics and the email list filters', () => {
  let t: CaptureApp;
  const ids: string[] = [];
  before(async () => {
    t = await startCaptureApp();
    for (let i = 0; i < 3; i++) ids.push(await t.send({ to: `user${i}@dest.test`, subject: `Invoice ${i} ready` }));
    const r = await t.resend.emails.send({
      from: 'hello@example.com',
      to: 'Tagged@Dest.test',
      subject: 'Welcome aboard',
      html: '<p>x</p>',
      tags: [{ name: 'campaign', value: 'spring' }],
    });
    ids.push(r.data!.id);
    await until(async () =>
      (await t.api('GET', '/emails?status=delivered')).body.data.length === 4 ? true : undefined,
    );
    // A permanent and a transient bounce, one open, two clicks of one email, as the delivery job and tracking would record them.
    const { rows } = await t.db.pool.query('SELECT team_id FROM emails LIMIT 1');
    const ev = (emailId: string, type: string, data: object) =>
      t.db.pool.query(
        'INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at) VALUES ($1, $2, $3, $4, NULL, $5, now())',
        [randomUUID(), emailId, rows[0].team_id, type, JSON.stringify(data)],
      );
    await ev(ids[0], 'email.bounced', { bounce: { type: 'Permanent' } });
    await ev(ids[1], 'email.bounced', { bounce: { type: 'Transient' } });
    await ev(ids[2], 'email.opened', {});
    await ev(ids[2], 'email.clicked', { click: { link: 'https://a.test' } });
    await ev(ids[2], 'email.clicked', { click: { link: 'https://b.test' } });
  });
  after(async () => {
    await t.close();
  });

  test('totals count sent, delivered, bounces by kind, unique opens, and rates', async () => {
    const r = await t.api('GET', '/emails/metrics');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.object, 'metrics');
    assert.equal(r.body.granularity, 'daily');
    const m = r.body.totals;
    assert.equal(m.sent, 4);
    assert.equal(m.delivered, 4);
    assert.equal(m.bounced, 2);
    assert.equal(m.bounced_permanent, 1);
    assert.equal(m.bounced_transient, 1);
    assert.equal(m.opened, 1);
    assert.equal(m.unique_opened, 1);
    assert.equal(m.clicked, 2);
    assert.equal(m.unique_clicked, 1);
    assert.equal(m.delivery_rate, 1);
    assert.equal(m.bounce_rate, 0.5);
    assert.equal(m.open_rate, 0.25);
    assert.equal(r.body.data, undefined);
  });

  test('hourly periods cover the range with zeros where nothing happened', async () => {
    const end = new Date();
    const start = new Date(end.getTime() - 5 * 3600_000);
    const r = await t.api(
      'GET',
      `/emails/metrics?granularity=hourly&dimensions=period&metrics=sent,delivered&start_date=${start.toISOString()}&end_date=${end.toISOString()}`,
    );
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.data.length >= 5 && r.body.data.length <= 7);
    assert.deepEqual(Object.keys(r.body.data[0]), ['period', 'sent', 'delivered']);
    assert.equal(
      r.body.data.reduce((n: number, d: any) => n + d.sent, 0),
      4,
    );
    assert.equal(r.body.data[0].sent, 0);
  });

  test('the domain dimension names the domain', async () => {
    const r = await t.api('GET', '/emails/metrics?dimensions=domain&metrics=sent');
    assert.deepEqual(r.body.data, [{ domain_id: t.domainId, domain_name: 'example.com', sent: 4 }]);
  });

  test('bad parameters are validation errors', async () => {
    assert.equal((await t.api('GET', '/emails/metrics?granularity=yearly')).status, 422);
    assert.equal((await t.api('GET', '/emails/metrics?metrics=nope')).status, 422);
    assert.equal((await t.api('GET', '/emails/metrics?timezone=Mars/Olympus')).status, 422);
    assert.equal((await t.api('GET', '/emails/metrics?start_date=2030-01-01&end_date=2020-01-01')).status, 422);
  });

  test('the list filters by status, tag, recipient (any case), subject words, domain and date range', async () => {
    const list = async (q: string) => (await t.api('GET', `/emails?${q}`)).body.data.map((e: any) => e.id).sort();
    assert.deepEqual(await list('tag=campaign:spring'), [ids[3]]);
    assert.deepEqual(await list('tag=campaign'), [ids[3]]);
    assert.deepEqual(await list('q=tagged@dest.test'), [ids[3]]);
    assert.deepEqual(await list('q=invoice%201'), [ids[1]]);
    assert.deepEqual(await list('q=invo'), ids.slice(0, 3).sort());
    assert.deepEqual(await list(`domain_id=${t.domainId}`), [...ids].sort());
    assert.deepEqual(await list(`domain_id=${randomUUID()}`), []);
    assert.deepEqual(await list('status=bounced'), []);
    assert.deepEqual(await list('end_date=2000-01-01'), []);
    assert.equal((await t.api('GET', '/emails?status=nope')).status, 422);
    assert.equal((await t.api('GET', '/emails?domain_id=nope')).status, 422);
  });

  test('the search finds part of a recipient address or a domain, in any case, as well as subject words', async () => {
    const list = async (q: string) => (await t.api('GET', `/emails?${q}`)).body.data.map((e: any) => e.id).sort();
    assert.deepEqual(await list('q=user1'), [ids[1]]);
    assert.deepEqual(await list('q=TAGGED'), [ids[3]]);
    assert.deepEqual(await list('q=dest.test'), [...ids].sort());
    assert.deepEqual(await list('q=%40dest'), [...ids].sort());
    assert.deepEqual(await list('q=welcome'), [ids[3]], 'subject words still match');
    assert.deepEqual(await list('q=user%25'), [], 'LIKE wildcards are taken literally');
    assert.deepEqual(await list('q=nobody.example'), []);
  });

  test('GET /emails/count counts what the same filters list, and the address search is answered by the trigram index', async () => {
    const count = async (q: string) => (await t.api('GET', `/emails/count?${q}`)).body;
    assert.deepEqual(await count(''), { object: 'email_count', count: 4, capped: false });
    assert.deepEqual(await count('q=dest.test'), { object: 'email_count', count: 4, capped: false });
    assert.deepEqual(await count('q=user1'), { object: 'email_count', count: 1, capped: false });
    assert.deepEqual(await count('q=invo'), { object: 'email_count', count: 3, capped: false });
    assert.equal((await count('tag=campaign:spring')).count, 1);
    assert.equal((await count('status=bounced')).count, 0);
    const bad = await t.api('GET', '/emails/count?status=nope');
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /`status`/);
    // The plan for a part of an address uses emails_addrs_trgm (0029) when scans are ruled out: the
    // expression in the query is the indexed one (a mismatch would leave only a scan, and fail here).
    const c = await t.db.pool.connect();
    try {
      await c.query('BEGIN');
      await c.query('SET LOCAL enable_seqscan = off');
      const { rows } = await c.query(
        `EXPLAIN SELECT id FROM emails WHERE mailroom_addrs_text(to_addrs) LIKE '%user1%'`,
      );
      assert.match(rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n'), /emails_addrs_trgm/);
    } finally {
      await c.query('ROLLBACK');
      c.release();
    }
  });

  test('filtered lists paginate by cursor', async () => {
    const first = await t.api('GET', '/emails?q=invoice&limit=2');
    assert.equal(first.body.has_more, true);
    const next = await t.api('GET', `/emails?q=invoice&limit=2&after=${first.body.data[1].id}`);
    assert.equal(next.body.data.length, 1);
    assert.equal(next.body.has_more, false);
  });

  test('the hourly rollup answers the same numbers as the raw events', async () => {
    const { rows } = await t.db.pool.query('SELECT team_id FROM emails LIMIT 1');
    const fiveHoursAgo = new Date(Date.now() - 5 * 3600_000);
    for (const [type, data] of [
      ['email.complained', {}],
      ['email.bounced', { bounce: { type: 'Permanent' } }],
      ['email.bounced', { bounce: { type: 'Transient' } }],
    ] as const) {
      await t.db.pool.query(
        'INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at) VALUES ($1, $2, $3, $4, NULL, $5, $6)',
        [randomUUID(), ids[3], rows[0].team_id, type, JSON.stringify(data), fiveHoursAgo],
      );
    }
    const q = `/emails/metrics?granularity=hourly&dimensions=period,domain&start_date=${new Date(Date.now() - 8 * 3600_000).toISOString()}&end_date=${new Date().toISOString()}`;
    const live = await t.api('GET', q);
    assert.equal(live.body.totals.complained, 1);
    assert.ok((await emailMetricsRollup(t.db.pool)) > 0);
    assert.ok((await emailMetricsRolledUntil(t.db.pool))! > fiveHoursAgo);
    const rolled = await t.api('GET', q);
    assert.deepEqual(rolled.body.totals, live.body.totals);
    assert.deepEqual(rolled.body.data, live.body.data);
    assert.equal(await emailMetricsRollup(t.db.pool), 0, 'nothing new to roll up');
  });
});

describe('GET /emails/metrics counts every outcome per recipient', () => {
  let t: CaptureApp;
  let multi = '';
  let blocked = '';
  const totals = async (q = '') => {
    const r = await t.api('GET', `/emails/metrics${q}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.totals;
  };
  before(async () => {
    t = await startCaptureApp();
    // Four distinct recipients (one repeated in bcc with other case), all delivered by capture mode.
    const a = await t.resend.emails.send({
      from: 'hello@example.com',
      to: ['One@dest.test', 'two@dest.test'],
      cc: 'three@dest.test',
      bcc: ['four@dest.test', 'one@dest.test'],
      subject: 'To four',
      html: '<p>x</p>',
    });
    multi = a.data!.id;
    assert.equal((await t.api('POST', '/suppressions', { body: { email: 'gone@dest.test' } })).status, 201);
    blocked = (
      await t.resend.emails.send({
        from: 'hello@example.com',
        to: 'gone@dest.test',
        subject: 'To a suppressed address',
        html: '<p>x</p>',
      })
    ).data!.id;
    await until(async () => {
      const { rows } = await t.db.pool.query(
        "SELECT count(*) FILTER (WHERE type = 'email.delivered')::int AS d, count(*) FILTER (WHERE type = 'email.suppressed')::int AS s FROM email_events",
      );
      return rows[0].d === 4 && rows[0].s === 1 ? true : undefined;
    });
    const { rows } = await t.db.pool.query('SELECT team_id FROM emails LIMIT 1');
    for (const type of ['email.delivery_delayed', 'email.failed']) {
      await t.db.pool.query(
        'INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at) VALUES ($1, $2, $3, $4, $5, $6, now())',
        [randomUUID(), blocked, rows[0].team_id, type, 'gone@dest.test', '{}'],
      );
    }
  });
  after(async () => {
    await t.close();
  });

  test('sent counts distinct recipients, so delivered, suppressed, delayed and failed add up against it', async () => {
    const m = await totals();
    assert.equal(m.sent, 5);
    assert.equal(m.delivered, 4);
    assert.equal(m.suppressed, 1);
    assert.equal(m.delivery_delayed, 1);
    assert.equal(m.failed, 1);
    assert.equal(m.delivery_rate, 0.8);
    assert.equal(m.bounce_rate, 0);
  });

  test('a rate never passes 100%, even when the email was sent before the range', async () => {
    await t.db.pool.query(
      "UPDATE email_events SET created_at = now() - interval '3 days' WHERE email_id = $1 AND type = 'email.sent'",
      [multi],
    );
    const m = await totals(`?start_date=${new Date(Date.now() - 86400_000).toISOString()}`);
    assert.equal(m.sent, 1);
    assert.equal(m.delivered, 4);
    assert.equal(m.delivery_rate, 1);
    await t.db.pool.query("UPDATE email_events SET created_at = now() WHERE email_id = $1 AND type = 'email.sent'", [
      multi,
    ]);
  });

  test('the hourly rollup counts recipients the same way as the raw events', async () => {
    await t.db.pool.query("UPDATE email_events SET created_at = created_at - interval '5 hours'");
    const q = `?granularity=hourly&dimensions=period,domain&start_date=${new Date(Date.now() - 8 * 3600_000).toISOString()}&end_date=${new Date().toISOString()}`;
    const live = await t.api('GET', `/emails/metrics${q}`);
    assert.equal(live.body.totals.sent, 5);
    assert.ok((await emailMetricsRollup(t.db.pool)) > 0);
    const rolled = await t.api('GET', `/emails/metrics${q}`);
    assert.deepEqual(rolled.body.totals, live.body.totals);
    assert.deepEqual(rolled.body.data, live.body.data);
  });

  test("the domain picker's query (domain_id) narrows the totals to that domain", async () => {
    assert.equal((await totals(`?domain_id=${t.domainId}`)).sent, 5);
    assert.equal((await totals(`?domain_id=${randomUUID()}`)).sent, 0);
  });
});

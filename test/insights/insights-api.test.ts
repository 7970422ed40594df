// Insights end to end through the real interfaces: the `resend` SDK sends, GET /emails/:id/insights
// answers over HTTP with what the rules found in the email as composed (analyzed off the request
// path: by the delivery job, or by the first read before it); a recipient's MX (a
// recording SMTP server on loopback, found through the fake DNS) answers 5xx or 4xx and the
// reply is explained on the email; GET /insights counts findings across the team's emails.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/harness.js';
import { teamCreate } from '../../src/store/teams.js';
import { startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';
import { until } from '../helpers/until.js';

interface Finding {
  id: string;
  severity: string;
  title: string;
  detail: string;
  fix: string;
}

describe('insights over the API', { timeout: 120_000 }, () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld();
  });
  after(async () => {
    await w?.close();
  });

  const insights = async (id: string) => {
    const r = await w.t.api('GET', `/emails/${id}/insights`);
    assert.equal(r.status, 200);
    return r.body as { object: string; email_id: string; analyzed: boolean; data: Finding[] };
  };

  test("an email sent with the SDK has its findings on the first read; GET /emails/:id keeps Resend's shape", async () => {
    const { data, error } = await w.t.resend.emails.send({
      from: 'Acme <no-reply@example.com>',
      to: 'ada@dest.test',
      subject: 'LAST CHANCE TO SAVE',
      html: '<p>Our sale ends tonight: <a href="https://bit.ly/3xYz12">see the offers</a> and the <a href="http://203.0.113.7/deals">deals</a>.</p><img src="https://i.imgur.com/x.png">',
    });
    assert.equal(error, null);
    const body = await insights(data!.id);
    assert.equal(body.object, 'list');
    assert.equal(body.email_id, data!.id);
    assert.equal(body.analyzed, true);
    const found = body.data.map((f) => f.id).sort();
    assert.deepEqual(found, [
      'image-external-host',
      'image-missing-alt',
      'link-domain-mismatch',
      'link-raw-ip',
      'link-shortener',
      'no-reply-address',
      'subject-all-caps',
    ]);
    assert.equal(body.data[0].severity, 'error', 'errors come first');
    for (const f of body.data) assert.deepEqual(Object.keys(f).sort(), ['detail', 'fix', 'id', 'severity', 'title']);
    const email = await w.t.resend.emails.get(data!.id);
    assert.equal(email.error, null);
    assert.ok(!('insights' in (email.data as object)), 'the Resend email object is unchanged');
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    assert.equal((await insights(data!.id)).data.length, found.length, 'a delivered email gains no finding');
  });

  test('a 550 5.7.26 from the receiver is explained on the email: DMARC alignment', async () => {
    w.mx.onRcpt = (a) =>
      a === 'strict@dest.test'
        ? {
            code: 550,
            message: "5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy",
          }
        : undefined;
    try {
      const { data } = await w.t.resend.emails.send({
        from: 'Acme <hello@example.com>',
        to: 'strict@dest.test',
        subject: 'Your receipt',
        text: 'Thanks for your order.',
      });
      await waitForLastEvent(w.t, data!.id, ['bounced']);
      const f = await until('the reply explained', async () =>
        (await insights(data!.id)).data.find((x) => x.id === 'receiver-rejected'),
      );
      assert.equal(f.severity, 'error');
      assert.equal(f.title, 'The receiver requires DMARC alignment');
      assert.match(f.detail, /strict@dest\.test: "550 5\.7\.26 Unauthenticated email/);
      assert.match(f.fix, /publish a DMARC record \(_dmarc\.example\.com\) and sign with the From domain/i);
    } finally {
      w.mx.onRcpt = () => undefined;
    }
  });

  test('a 450 4.7.28 rate limit is explained once: later attempts add nothing', async () => {
    w.mx.onRcpt = (a) =>
      a === 'busy@dest.test'
        ? { code: 450, message: '4.7.28 Our system has detected an unusual rate of mail from your IP address' }
        : undefined;
    try {
      const { data } = await w.t.resend.emails.send({
        from: 'Acme <hello@example.com>',
        to: 'busy@dest.test',
        subject: 'Your receipt',
        text: 'Thanks for your order.',
      });
      await waitForLastEvent(w.t, data!.id, ['delivery_delayed']);
      const body = await until('the deferral explained', async () => {
        const b = await insights(data!.id);
        return b.data.some((x) => x.id === 'receiver-deferred') && b;
      });
      const f = body.data.find((x) => x.id === 'receiver-deferred')!;
      assert.equal(f.severity, 'warning');
      assert.equal(f.title, 'The receiver is rate-limiting this sender');
      // Run the retry now: a second deferral must not add a second explanation.
      await w.t.db.pool.query(
        "UPDATE jobs SET run_at = now() WHERE kind = 'email.deliver' AND state = 'pending' AND payload->>'email_id' = $1",
        [data!.id],
      );
      await w.t.db.pool.query("SELECT pg_notify('mailroom_jobs', 'email.deliver')");
      await until(
        'a second attempt',
        async () => {
          const ev = (await w.t.api('GET', `/emails/${data!.id}/events`)).body.data as { type: string }[];
          return ev.some((e) => e.type === 'email.delivery_attempt');
        },
        20_000,
      );
      assert.equal((await insights(data!.id)).data.filter((x) => x.id.startsWith('receiver-')).length, 1);
    } finally {
      w.mx.onRcpt = () => undefined;
    }
  });

  test("GET /insights counts the team's findings in emails, most common first; another team sees none", async () => {
    for (let i = 0; i < 2; i++) {
      assert.equal(
        (
          await w.t.resend.emails.send({
            from: 'Acme <hello@example.com>',
            to: 'ada@dest.test',
            subject: `Read this now!!! ${i}`,
            html: '<p>Short note with a <a href="https://tinyurl.com/abc">link</a>.</p>',
          })
        ).error,
        null,
      );
    }
    // Counted once analyzed: by each email's delivery job (off the request path).
    const r = await until(
      'the emails analyzed',
      async () => {
        const x = await w.t.api('GET', '/insights?days=7');
        return (
          x.status === 200 &&
          (x.body.data as { id: string; emails: number }[]).find((f) => f.id === 'link-shortener')?.emails === 3 &&
          (x.body.data as { id: string; emails: number }[]).find((f) => f.id === 'subject-spam-trigger')?.emails ===
            2 &&
          x
        );
      },
      30_000,
    );
    assert.equal(r.status, 200);
    assert.equal(r.body.object, 'list');
    assert.equal(r.body.days, 7);
    assert.ok(r.body.analyzed >= 5, `analyzed ${r.body.analyzed}`);
    const byId = new Map(
      (r.body.data as { id: string; emails: number; share: number; why: string; example_email_id: string }[]).map(
        (f) => [f.id, f],
      ),
    );
    assert.equal(byId.get('link-shortener')!.emails, 3);
    assert.equal(byId.get('subject-spam-trigger')!.emails, 2);
    assert.match(byId.get('link-shortener')!.why, /blocklists/);
    const counts = r.body.data.map((f: { emails: number }) => f.emails);
    assert.deepEqual(
      counts,
      [...counts].sort((a: number, b: number) => b - a),
      'most common first',
    );
    assert.equal(
      (await w.t.api('GET', `/emails/${byId.get('link-shortener')!.example_email_id}/insights`)).status,
      200,
    );
    const team = await teamCreate(w.t.db.pool, 'Other team');
    const key = (await w.t.app.apiKeys.create(team.id, { name: 'other' })).token;
    const mine = await w.t.api('GET', '/insights', { key });
    assert.equal(mine.status, 200);
    assert.deepEqual(mine.body.data, []);
    assert.equal(
      (await w.t.api('GET', `/emails/${byId.get('link-shortener')!.example_email_id}/insights`, { key })).status,
      404,
      "another team's email is not found",
    );
  });

  test('bad requests get Resend-shaped errors', async () => {
    for (const days of ['0', '91', 'week', '-1']) {
      const r = await w.t.api('GET', `/insights?days=${days}`);
      assert.equal(r.status, 422, days);
      assert.equal(r.body.name, 'validation_error');
    }
    const missing = await w.t.api('GET', '/emails/3f1c2a9e-8f1e-4a51-9d9b-2f1b5a1c0e11/insights');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.name, 'not_found');
    assert.equal((await w.t.api('GET', '/emails/not-an-id/insights')).status, 404);
    assert.equal((await w.t.api('GET', '/insights', { key: null })).status, 401);
  });

  test('the OpenAPI document describes both endpoints', async () => {
    const doc = (await w.t.api('GET', '/openapi.json', { key: null })).body;
    assert.ok(doc.paths['/emails/{id}/insights']?.get, 'GET /emails/{id}/insights');
    assert.ok(doc.paths['/insights']?.get, 'GET /insights');
  });
});

test('with MAILROOM_INSIGHTS=false nothing is analyzed and the email says so', { timeout: 60_000 }, async () => {
  const t = await startTestApp({ deliveryMode: 'capture', insights: false });
  try {
    const d = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(d.data!.id);
    const { data } = await t.resend.emails.send({
      from: 'no-reply@example.com',
      to: 'ada@dest.test',
      subject: 'ALL CAPS',
      html: '<a href="https://bit.ly/x">x</a>',
    });
    const r = await t.api('GET', `/emails/${data!.id}/insights`);
    assert.equal(r.status, 200);
    assert.equal(r.body.analyzed, false);
    assert.deepEqual(r.body.data, []);
  } finally {
    await t.close();
  }
});

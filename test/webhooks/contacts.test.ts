import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { emailMetricsRollup } from '../../src/store/email-metrics.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('contact.* webhooks', () => {
  let t: TestApp;
  let rcv: Receiver;
  let rcv2: Receiver;
  // One request in flight per endpoint, so that arrival order is the outbox order.
  before(async () => {
    t = await startTestApp({ allowPrivateNetworks: true, webhookConcurrency: 1 });
    rcv = await startReceiver();
    rcv2 = await startReceiver();
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => rcv2.close(),
      () => t.close(),
    ),
  );

  test('create, unsubscribe and delete reach the endpoint as three signed events, in order, with the contact data', async () => {
    const w = (
      await t.resend.webhooks.create({
        endpoint: rcv.url,
        events: ['contact.created', 'contact.updated', 'contact.deleted'],
      })
    ).data!;
    const other = (await t.resend.webhooks.create({ endpoint: rcv2.url, events: ['email.sent', 'contact.deleted'] }))
      .data!;

    // Back to back, so that the three events may be dispatched in one pass.
    const id = (await t.resend.contacts.create({ email: 'Steve@Example.com', firstName: 'Steve' })).data!.id;
    assert.equal((await t.resend.contacts.update({ id, unsubscribed: true })).error, null);
    assert.equal((await t.resend.contacts.update({ id, unsubscribed: true, firstName: 'Steve' })).error, null); // changes nothing: no event
    assert.equal((await t.resend.contacts.remove(id)).error, null);

    const got = await rcv.waitFor(3);
    const payloads = got.map((r) => {
      const sdk = t.resend.webhooks.verify({
        payload: r.body,
        webhookSecret: w.signing_secret,
        headers: {
          id: r.headers['svix-id'] as string,
          timestamp: r.headers['svix-timestamp'] as string,
          signature: r.headers['svix-signature'] as string,
        },
      }) as unknown as { type: string; created_at: string; data: Record<string, unknown> };
      const sw = new Webhook(w.signing_secret).verify(r.body, {
        'webhook-id': r.headers['webhook-id'] as string,
        'webhook-timestamp': r.headers['webhook-timestamp'] as string,
        'webhook-signature': r.headers['webhook-signature'] as string,
      });
      assert.deepEqual(sw, sdk);
      assert.throws(
        () =>
          new Webhook(w.signing_secret).verify(r.body.replace('steve@', 'mallory@'), {
            'webhook-id': r.headers['webhook-id'] as string,
            'webhook-timestamp': r.headers['webhook-timestamp'] as string,
            'webhook-signature': r.headers['webhook-signature'] as string,
          }),
        /No matching signature/,
      );
      return sdk;
    });
    assert.deepEqual(
      payloads.map((p) => p.type),
      ['contact.created', 'contact.updated', 'contact.deleted'],
    );
    const [created, updated, deleted] = payloads;
    for (const p of payloads) {
      assert.deepEqual(Object.keys(p.data), [
        'id',
        'audience_id',
        'segment_ids',
        'created_at',
        'updated_at',
        'email',
        'first_name',
        'last_name',
        'unsubscribed',
      ]);
      assert.match(p.created_at, ISO);
      assert.match(p.data.created_at as string, ISO);
      assert.match(p.data.updated_at as string, ISO);
      assert.equal(p.data.id, id);
      assert.equal(p.data.audience_id, null);
      assert.deepEqual(p.data.segment_ids, []);
      assert.equal(p.data.email, 'steve@example.com');
      assert.equal(p.data.first_name, 'Steve');
      assert.equal(p.data.last_name, null);
    }
    assert.equal(created.data.unsubscribed, false);
    assert.equal(created.data.updated_at, created.data.created_at);
    assert.equal(updated.data.unsubscribed, true);
    assert.ok((updated.data.updated_at as string) > (created.data.updated_at as string));
    assert.equal(deleted.data.unsubscribed, true);
    assert.equal(deleted.data.created_at, created.data.created_at);
    assert.ok(created.created_at <= updated.created_at && updated.created_at <= deleted.created_at);

    // Each endpoint heard only what it subscribed to: the other one only the deletion.
    const log = async (webhookId: string) => (await t.resend.webhooks.events.list({ webhookId })).data!.data;
    assert.deepEqual((await log(w.id)).map((m) => m.type).sort(), [
      'contact.created',
      'contact.deleted',
      'contact.updated',
    ]);
    assert.deepEqual(
      (await log(other.id)).map((m) => m.type),
      ['contact.deleted'],
    );
    assert.equal(JSON.parse((await rcv2.waitFor(1))[0].body).type, 'contact.deleted');
    await sleep(300);
    assert.deepEqual([rcv.received.length, rcv2.received.length], [3, 1], 'nothing more arrives');
    await t.resend.webhooks.remove(w.id);
    await t.resend.webhooks.remove(other.id);
  });

  test('contact events are not email timelines and do not count in email metrics, live or rolled up', async () => {
    const id = (await t.resend.contacts.create({ email: 'metrics@example.com' })).data!.id;
    await t.resend.contacts.update({ id, unsubscribed: true });
    const { rows } = await t.db.pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM email_events WHERE email_id = $1 AND type LIKE 'contact.%'",
      [id],
    );
    assert.equal(rows[0].n, 2, 'the events exist');

    assert.equal((await t.api('GET', `/emails/${id}/events`)).status, 404);
    assert.equal((await t.api('GET', `/emails/${id}`)).status, 404);
    assert.deepEqual((await t.api('GET', '/emails')).body.data, []);

    // Move every contact event into a closed hour so that the rollup takes them in too.
    await t.db.pool.query(
      "UPDATE email_events SET created_at = now() - interval '5 hours' WHERE type LIKE 'contact.%'",
    );
    const q = `/emails/metrics?granularity=hourly&dimensions=period,domain&start_date=${new Date(Date.now() - 8 * 3600_000).toISOString()}&end_date=${new Date().toISOString()}`;
    const zeros = (totals: Record<string, number>) => Object.entries(totals).filter(([, v]) => v !== 0 && v !== null);
    const live = await t.api('GET', q);
    assert.equal(live.status, 200, JSON.stringify(live.body));
    assert.ok(Object.keys(live.body.totals).includes('unsubscribed'));
    assert.deepEqual(zeros(live.body.totals), []);
    assert.ok((await emailMetricsRollup(t.db.pool)) > 0);
    const hourly = await t.db.pool.query("SELECT type FROM email_metrics_hourly WHERE type LIKE 'contact.%'");
    assert.equal(hourly.rowCount, 0);
    assert.deepEqual(zeros((await t.api('GET', q)).body.totals), []);
  });
});

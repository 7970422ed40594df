import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { closeAll } from '../helpers/close-all.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d(:?\d\d)?)$/;

describe('domain.* and suppression.* webhooks', () => {
  let t: TestApp;
  let rcv: Receiver;
  before(async () => {
    t = await startTestApp({ allowPrivateNetworks: true, webhookConcurrency: 1, deliveryMode: 'capture' });
    rcv = await startReceiver();
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => t.close(),
    ),
  );

  const payloads = (got: { body: string }[]) =>
    got.map((r) => JSON.parse(r.body) as { type: string; data: Record<string, any> });

  test('creating, verifying, changing and deleting a domain reach the endpoint with the domain', async () => {
    await t.resend.webhooks.create({
      endpoint: rcv.url,
      events: ['domain.created', 'domain.updated', 'domain.deleted'],
    });
    const { data } = await t.resend.domains.create({ name: 'events.example.com' });
    await t.resend.domains.verify(data!.id);
    await t.resend.domains.update({ id: data!.id, openTracking: true });
    await t.resend.domains.remove(data!.id);
    const got = payloads(await rcv.waitFor(4));
    assert.deepEqual(
      got.map((p) => p.type),
      ['domain.created', 'domain.updated', 'domain.updated', 'domain.deleted'],
    );
    for (const p of got) {
      assert.deepEqual(Object.keys(p.data).sort(), ['created_at', 'id', 'name', 'records', 'region', 'status']);
      assert.equal(p.data.id, data!.id);
      assert.equal(p.data.name, 'events.example.com');
      assert.match(String(p.data.created_at), /Z$/);
      assert.match(String(p.data.created_at), ISO);
      assert.ok(Array.isArray(p.data.records) && p.data.records.length >= 3);
    }
    assert.equal(got[0].data.status, 'not_started');
    assert.equal(got[1].data.status, 'verified', 'the verification that changed the status');
  });

  test('adding and removing a suppression reach the endpoint; a bounce-made one too', async () => {
    rcv.received.length = 0;
    await t.resend.webhooks.create({ endpoint: rcv.url, events: ['suppression.added', 'suppression.removed'] });
    const added = await t.resend.suppressions.add({ email: 'Gone@Example.org' } as never);
    assert.equal(added.error, null, JSON.stringify(added.error));
    await t.resend.suppressions.add({ email: 'gone@example.org' } as never); // already there: no second event
    await t.resend.suppressions.remove('gone@example.org');
    const got = payloads(await rcv.waitFor(2));
    assert.deepEqual(
      got.map((p) => p.type),
      ['suppression.added', 'suppression.removed'],
    );
    assert.deepEqual(Object.keys(got[0].data).sort(), ['created_at', 'email', 'id', 'origin', 'source_id']);
    assert.equal(got[0].data.email, 'gone@example.org');
    assert.equal(got[0].data.origin, 'manual');
    assert.equal(got[0].data.source_id, null);
    assert.match(got[0].data.created_at, ISO);
    assert.equal(got[1].data.id, got[0].data.id);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(rcv.received.length, 2, 'nothing more');
  });
});

// Bulk operations reach webhooks as the single operations do (issue 30): a contact unsubscribed by
// POST /contacts/bulk gets the same contact.updated payload as one unsubscribed by PATCH (segments
// included), and a bulk delete the same contact.deleted payload as DELETE /contacts/:id.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { closeAll } from '../../helpers/close-all.js';
import { until } from '../../helpers/until.js';

describe('bulk contact changes in webhooks', { timeout: 60_000 }, () => {
  let t: CaptureApp;
  let rcv: Receiver;
  let seg: string;
  const id: Record<string, string> = {};
  before(async () => {
    t = await startCaptureApp();
    rcv = await startReceiver();
    const wh = await t.resend.webhooks.create({ endpoint: rcv.url, events: ['contact.updated', 'contact.deleted'] });
    assert.equal(wh.error, null, JSON.stringify(wh.error));
    seg = (await t.resend.segments.create({ name: 'S' })).data!.id;
    for (const name of ['single', 'bulk'])
      id[name] = (
        await t.resend.contacts.create({
          email: `${name}@dest.test`,
          firstName: name,
          segments: [{ id: seg }],
        } as never)
      ).data!.id;
  });
  after(() =>
    closeAll(
      () => rcv?.close(),
      () => t?.close(),
    ),
  );

  const payloadOf = (type: string, contactId: string) =>
    until(`${type} for ${contactId}`, async () =>
      rcv.received.map((r) => JSON.parse(r.body)).find((p) => p.type === type && p.data.id === contactId),
    );
  /** The payload with what differs between two contacts (ids, address, names, times) left out. */
  const shape = (p: { type: string; data: Record<string, unknown> }) => {
    const { id: _i, email: _e, first_name: _f, created_at: _c, updated_at: _u, ...rest } = p.data;
    return { type: p.type, keys: Object.keys(p.data).sort(), ...rest };
  };

  test('contact.updated from a bulk unsubscribe matches a PATCH', async () => {
    await t.resend.contacts.update({ id: id.single, unsubscribed: true } as never);
    const r = await t.api('POST', '/contacts/bulk', { body: { action: 'unsubscribe', contacts: [id.bulk] } });
    assert.equal(r.body.changed, 1);
    const single = await payloadOf('contact.updated', id.single);
    const bulk = await payloadOf('contact.updated', id.bulk);
    assert.deepEqual(shape(bulk), shape(single));
    assert.deepEqual([bulk.data.unsubscribed, bulk.data.segment_ids, bulk.data.audience_id], [true, [seg], seg]);
  });

  test('contact.deleted from a bulk delete matches a DELETE', async () => {
    await t.resend.contacts.remove({ id: id.single } as never);
    const r = await t.api('POST', '/contacts/bulk', { body: { action: 'delete', match: { search: 'bulk@dest' } } });
    assert.deepEqual([r.body.matched, r.body.changed], [1, 1]);
    const single = await payloadOf('contact.deleted', id.single);
    const bulk = await payloadOf('contact.deleted', id.bulk);
    assert.deepEqual(shape(bulk), shape(single));
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { closeAll } from '../../helpers/close-all.js';

describe('inboxes through the resend SDK', () => {
  let t: TestApp;
  let rcv: Receiver;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', allowPrivateNetworks: true });
    rcv = await startReceiver();
    await t.resend.webhooks.create({ endpoint: rcv.url, events: ['inbox.created', 'inbox.updated', 'inbox.deleted'] });
    const recv = await t.api('POST', '/domains', {
      body: { name: 'support.test', capabilities: { sending: 'enabled', receiving: 'enabled' } },
    });
    assert.equal(recv.status, 201, JSON.stringify(recv.body));
    await t.resend.domains.verify(recv.body.id);
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'send-only.test' })).data!.id);
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => t.close(),
    ),
  );

  test('create on a receiving domain, get and update by id or address, list, remove; events sent', async () => {
    const created = await t.resend.inboxes.create({
      emailAddress: 'Help@Support.test',
      name: 'Help',
      fromName: 'Help desk',
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const id = created.data!.id;
    assert.equal(created.data!.object, 'inbox');
    const byId = (await t.resend.inboxes.get(id)).data!;
    const byAddress = (await t.resend.inboxes.get('help@support.test')).data!;
    assert.deepEqual(byId, byAddress);
    assert.equal(byId.email_address, 'Help@support.test'.toLowerCase());
    assert.deepEqual(
      [byId.object, byId.name, byId.from_name, byId.unread, byId.drafts, byId.last_received],
      ['inbox', 'Help', 'Help desk', 0, 0, null],
    );
    assert.ok(byId.domain_id);

    const upd = await t.resend.inboxes.update('help@support.test', { fromName: 'The help desk' });
    assert.deepEqual(upd.data, { object: 'inbox', id });
    assert.equal((await t.resend.inboxes.get(id)).data!.from_name, 'The help desk');
    assert.equal((await t.resend.inboxes.get(id)).data!.name, 'Help', 'name kept');

    // Refusals: not a receiving domain, not the team's, a duplicate, bad fields.
    const sendOnly = await t.resend.inboxes.create({ emailAddress: 'a@send-only.test' });
    assert.equal(sendOnly.error?.statusCode, 422);
    assert.match(sendOnly.error!.message, /receiving/);
    assert.equal((await t.resend.inboxes.create({ emailAddress: 'a@nowhere.test' })).error?.statusCode, 422);
    const dup = await t.resend.inboxes.create({ emailAddress: 'help@support.test' });
    assert.match(dup.error!.message, /already exists/);
    const missing = await t.api('POST', '/inboxes', { body: {} });
    assert.equal(missing.body.name, 'missing_required_field');
    const long = await t.api('POST', '/inboxes', { body: { email_address: 'x@support.test', name: 'n'.repeat(257) } });
    assert.equal(long.status, 422);
    assert.match(long.body.message, /`name`/);
    const nothing = await t.api('PATCH', `/inboxes/${id}`, { body: {} });
    assert.equal(nothing.status, 422);

    // Paging: newest first, limit/after.
    const more: string[] = [];
    for (const n of ['b', 'c', 'd'])
      more.push((await t.resend.inboxes.create({ emailAddress: `${n}@support.test` })).data!.id);
    const p1 = (await t.resend.inboxes.list({ limit: 2 })).data!;
    assert.equal(p1.has_more, true);
    assert.deepEqual(
      p1.data.map((i) => i.email_address),
      ['d@support.test', 'c@support.test'],
    );
    const p2 = (await t.resend.inboxes.list({ limit: 2, after: p1.data[1].id })).data!;
    assert.equal(p2.has_more, false);
    assert.deepEqual(
      p2.data.map((i) => i.email_address),
      ['b@support.test', 'help@support.test'],
    );

    const stranger = await t.resend.inboxes.list({ limit: 2, after: '00000000-0000-4000-8000-000000000000' });
    assert.equal(stranger.error?.statusCode, 422);
    const before = (await t.resend.inboxes.list({ limit: 2, before: p2.data[0].id })).data!;
    assert.deepEqual(
      before.data.map((i) => i.email_address),
      ['d@support.test', 'c@support.test'],
    );

    // Another team sees none of it.
    const other = await otherTeamClient(t, 'Others');
    assert.equal((await other.inboxes.get(id)).error?.name, 'not_found');
    assert.equal((await other.inboxes.get('help@support.test')).error?.name, 'not_found');
    assert.equal((await other.inboxes.remove(id)).error?.name, 'not_found');
    assert.deepEqual((await other.inboxes.list()).data!.data, []);
    assert.equal((await other.inboxes.create({ emailAddress: 'z@support.test' })).error?.statusCode, 422);

    assert.deepEqual((await t.resend.inboxes.remove(more[0])).data, { object: 'inbox', id: more[0], deleted: true });
    assert.equal((await t.resend.inboxes.get(more[0])).error?.name, 'not_found');

    const events = (await rcv.waitFor(6)).map((r) => JSON.parse(r.body));
    assert.deepEqual(
      events.map((e) => e.type).sort(),
      ['inbox.created', 'inbox.created', 'inbox.created', 'inbox.created', 'inbox.deleted', 'inbox.updated'],
      'refused requests sent nothing',
    );
    const upd1 = events.find((e) => e.type === 'inbox.updated');
    assert.deepEqual([upd1.data.source, upd1.data.inbox_id, upd1.data.inbox.from_name], ['api', id, 'The help desk']);
    assert.deepEqual(events.find((e) => e.type === 'inbox.deleted').data, { source: 'api', inbox_id: more[0] });
  });
});

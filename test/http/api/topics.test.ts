import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { closeAll } from '../../helpers/close-all.js';

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
    const v = await fn();
    if (v !== undefined) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('topics and contact subscriptions through the resend SDK', () => {
  let t: TestApp;
  let rcv: Receiver;
  let news: string;
  let product: string;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', allowPrivateNetworks: true });
    rcv = await startReceiver();
    await t.resend.webhooks.create({ endpoint: rcv.url, events: ['topic.created', 'topic.updated', 'topic.deleted'] });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => t.close(),
    ),
  );

  test('create, get, list, update and delete; default_subscription is fixed; each change reaches webhooks', async () => {
    const created = await t.resend.topics.create({
      name: 'Newsletter',
      description: 'Monthly news',
      defaultSubscription: 'opt_in',
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    news = created.data!.id;
    product = (await t.resend.topics.create({ name: 'Product updates', defaultSubscription: 'opt_out' })).data!.id;
    const got = (await t.resend.topics.get(news)).data as any;
    assert.deepEqual(
      [got.object, got.name, got.description, got.default_subscription, got.visibility],
      ['topic', 'Newsletter', 'Monthly news', 'opt_in', 'private'],
    );
    const list = (await t.resend.topics.list()).data as any;
    assert.deepEqual(list.data.map((x: any) => x.name).sort(), ['Newsletter', 'Product updates']);
    assert.equal((await t.resend.topics.update({ id: news, name: 'The newsletter' } as never)).error, null);
    assert.equal(((await t.resend.topics.get(news)).data as any).name, 'The newsletter');
    const fixed = await t.api('PATCH', `/topics/${news}`, { body: { default_subscription: 'opt_out' } });
    assert.equal(fixed.status, 422);
    assert.match(fixed.body.message, /default_subscription/);
    const missing = await t.api('POST', '/topics', { body: { name: 'x' } });
    assert.equal(missing.body.name, 'missing_required_field');
    const tmp = (await t.resend.topics.create({ name: 'Temporary', defaultSubscription: 'opt_in' })).data!.id;
    assert.deepEqual((await t.resend.topics.remove(tmp)).data, { object: 'topic', id: tmp, deleted: true });
    assert.equal((await t.resend.topics.get(tmp)).error?.name, 'not_found');
    const events = (await rcv.waitFor(5)).map((r) => JSON.parse(r.body));
    assert.deepEqual(
      events.map((e) => e.type).sort(),
      ['topic.created', 'topic.created', 'topic.created', 'topic.deleted', 'topic.updated'],
      'the refused change sent nothing',
    );
    assert.ok(events.some((e) => e.type === 'topic.deleted' && e.data.id === tmp && e.data.deleted === true));
    assert.ok(events.some((e) => e.type === 'topic.updated' && e.data.name === 'The newsletter'));
    const other = await otherTeamClient(t, 'Others');
    assert.equal((await other.topics.get(news)).error?.name, 'not_found');
  });

  test("a contact's subscriptions: the defaults, set on create, changed with the SDK's bare array", async () => {
    const id = (
      await t.resend.contacts.create({
        email: 'ann@example.org',
        topics: [{ id: product, subscription: 'opt_in' }],
      } as never)
    ).data!.id;
    const subs = async () =>
      Object.fromEntries(
        ((await t.resend.contacts.topics.list({ id })).data as any).data.map((x: any) => [x.id, x.subscription]),
      );
    assert.deepEqual(await subs(), { [news]: 'opt_in', [product]: 'opt_in' });
    const upd = await t.resend.contacts.topics.update({ id, topics: [{ id: news, subscription: 'opt_out' }] });
    assert.equal(upd.error, null, JSON.stringify(upd.error));
    assert.deepEqual(await subs(), { [news]: 'opt_out', [product]: 'opt_in' });
    const wrapped = await t.api('PATCH', '/contacts/ann@example.org/topics', {
      body: { topics: [{ id: product, subscription: 'opt_out' }] },
    });
    assert.equal(wrapped.status, 200, JSON.stringify(wrapped.body));
    assert.deepEqual(await subs(), { [news]: 'opt_out', [product]: 'opt_out' });
    const unknown = await t.api('PATCH', `/contacts/${id}/topics`, {
      body: [{ id: '00000000-0000-4000-8000-000000000000', subscription: 'opt_in' }],
    });
    assert.equal(unknown.status, 422);
    const bad = await t.api('PATCH', `/contacts/${id}/topics`, { body: [{ id: news, subscription: 'maybe' }] });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /subscription/);
  });

  test('an email for a topic is held for a contact who left it and delivered to the others; an unknown topic is a 422', async () => {
    await t.resend.contacts.create({ email: 'bob@example.org' });
    const sent = await t.resend.emails.send({
      from: 'a@example.com',
      to: ['ann@example.org', 'bob@example.org', 'stranger@example.org'],
      subject: 'News',
      text: 'x',
      topicId: news,
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const id = sent.data!.id;
    const events = await until('all recipients settled', async () => {
      const r = await t.api('GET', `/emails/${id}/events`);
      const list = r.body.data.filter((e: any) => e.recipient);
      return list.length >= 3 ? list : undefined;
    });
    const by = Object.fromEntries(events.map((e: any) => [e.recipient, e]));
    assert.equal(by['ann@example.org'].type, 'email.suppressed');
    assert.equal(by['ann@example.org'].data.suppressed.reason, 'unsubscribed');
    assert.equal(by['bob@example.org'].type, 'email.delivered', 'opt_in by default');
    assert.equal(by['stranger@example.org'].type, 'email.delivered', 'not a contact: not held');
    assert.equal((await t.resend.emails.get(id)).data!.topic_id, news);
    const unknown = await t.resend.emails.send({
      from: 'a@example.com',
      to: 'b@example.org',
      subject: 's',
      text: 'x',
      topicId: '00000000-0000-4000-8000-000000000000',
    });
    assert.equal(unknown.error?.name, 'validation_error');
    assert.match(unknown.error!.message, /`topic_id`/);
  });
});

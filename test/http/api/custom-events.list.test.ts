// GET /custom-events and GET /custom-events/names (Mailroom extensions behind the dashboard's Events
// page), over HTTP: newest first, by name, by contact (id or address, events sent for the address
// before the contact existed included), paging, 422/404 for bad filters, and one team only.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';

describe('GET /custom-events (recent events by name and contact)', () => {
  let t: TestApp;
  let ada: string;
  const list = async (query = '') => t.api('GET', `/custom-events${query}`);
  const names = (body: any) => body.data.map((e: any) => [e.event, e.email]);

  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
    ada = (await t.resend.contacts.create({ email: 'ada@example.com' })).data!.id;
    // In order, so that created_at orders them (one at a time, each committed before the next).
    for (const [event, who] of [
      ['signup.started', 'grace@example.com'],
      ['user.created', ada],
      ['user.created', 'bob@example.com'],
      ['plan.changed', ada],
    ] as const) {
      const body = who.includes('@')
        ? { event, email: who, payload: { n: 1 } }
        : { event, contact_id: who, payload: { n: 1 } };
      assert.equal((await t.api('POST', '/events/send', { body })).status, 202);
    }
  });
  after(async () => {
    await t.close();
  });

  test("all events, newest first, shaped like a contact's history", async () => {
    const r = await list();
    assert.equal(r.status, 200);
    assert.equal(r.body.object, 'list');
    assert.equal(r.body.has_more, false);
    assert.deepEqual(names(r.body), [
      ['plan.changed', 'ada@example.com'],
      ['user.created', 'bob@example.com'],
      ['user.created', 'ada@example.com'],
      ['signup.started', 'grace@example.com'],
    ]);
    const e = r.body.data[0];
    assert.deepEqual(Object.keys(e).sort(), ['contact_id', 'created_at', 'email', 'event', 'id', 'object', 'payload']);
    assert.equal(e.object, 'custom_event');
    assert.equal(e.contact_id, ada);
    assert.deepEqual(e.payload, { n: 1 });
  });

  test('by name, by contact id, by address; an address that later became a contact keeps its earlier events', async () => {
    assert.deepEqual(names((await list('?event=user.created')).body), [
      ['user.created', 'bob@example.com'],
      ['user.created', 'ada@example.com'],
    ]);
    assert.deepEqual(names((await list(`?contact=${ada}`)).body), [
      ['plan.changed', 'ada@example.com'],
      ['user.created', 'ada@example.com'],
    ]);
    assert.deepEqual(names((await list(`?contact=${ada}&event=user.created`)).body), [
      ['user.created', 'ada@example.com'],
    ]);
    assert.deepEqual(
      names((await list('?contact=Grace@Example.com')).body),
      [['signup.started', 'grace@example.com']],
      'an address that is no contact yet',
    );
    await t.resend.contacts.create({ email: 'grace@example.com' });
    assert.deepEqual(
      names((await list('?contact=grace@example.com')).body),
      [['signup.started', 'grace@example.com']],
      'the same once it is a contact',
    );
    assert.deepEqual((await list('?event=nothing.here')).body.data, []);
  });

  test('pages with limit and after', async () => {
    const first = await list('?limit=3');
    assert.equal(first.body.data.length, 3);
    assert.equal(first.body.has_more, true);
    const rest = await list(`?limit=3&after=${first.body.data[2].id}`);
    assert.deepEqual(names(rest.body), [['signup.started', 'grace@example.com']]);
    assert.equal(rest.body.has_more, false);
    assert.equal((await list('?limit=500')).status, 422);
  });

  test('a bad contact filter is a 422, an unknown contact id a 404; the names summary counts the recent ones', async () => {
    const bad = await list('?contact=not-an-address');
    assert.equal(bad.status, 422);
    assert.equal(bad.body.name, 'validation_error');
    assert.match(bad.body.message, /`contact`/);
    const missing = await list('?contact=00000000-0000-4000-8000-000000000000');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.name, 'not_found');
    const n = await t.api('GET', '/custom-events/names');
    assert.equal(n.status, 200);
    assert.deepEqual(
      n.body.data.map((x: any) => [x.name, x.count]),
      [
        ['plan.changed', 1],
        ['user.created', 2],
        ['signup.started', 1],
      ],
    );
    assert.ok(n.body.data.every((x: any) => typeof x.last_seen_at === 'string'));
  });

  test('another team sees none of it, and the routes need a key', async () => {
    const other = await otherTeamClient(t, 'Other');
    const r = await other.get<any>('/custom-events');
    assert.deepEqual(r.data?.data, []);
    assert.equal((await t.api('GET', '/custom-events', { key: null })).status, 401);
    assert.equal((await t.api('GET', '/custom-events/names', { key: null })).status, 401);
  });

  test('/openapi.json documents both routes and the filters', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    assert.ok(doc.paths['/custom-events/names']?.get, 'GET /custom-events/names');
    const params = (doc.paths['/custom-events']?.get?.parameters ?? []).map((p: any) => p.name);
    for (const name of ['event', 'contact', 'limit', 'after'])
      assert.ok(params.includes(name), `GET /custom-events ?${name}`);
  });
});

// Custom events through the real resend SDK (resend.events.*), with fetch where the SDK cannot
// express a call (both or neither of contact_id/email, status codes, the history extension).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Resend } from 'resend';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';

describe('custom events and their definitions through the resend SDK', () => {
  let t: TestApp;
  let ada: string; // a contact of the main team
  const rows = async (name: string) =>
    (await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM custom_events WHERE name = $1', [name]))
      .rows[0].n;
  const history = async (idOrEmail: string, query = '') =>
    t.api('GET', `/contacts/${encodeURIComponent(idOrEmail)}/events${query}`);

  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
    const c = await t.resend.contacts.create({ email: 'ada@example.com', firstName: 'Ada' });
    assert.equal(c.error, null, JSON.stringify(c.error));
    ada = c.data!.id;
  });
  after(async () => {
    await t.close();
  });

  test('sending by contact_id answers 202 {object: "event", event} and lands in the contact\'s history', async () => {
    const sent = await t.resend.events.send({ event: 'user.created', contactId: ada, payload: { plan: 'pro' } });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    assert.deepEqual(sent.data, { object: 'event', event: 'user.created' });
    const raw = await t.api('POST', '/events/send', { body: { event: 'user.created', contact_id: ada } });
    assert.equal(raw.status, 202);
    assert.deepEqual(raw.body, { object: 'event', event: 'user.created' });
    const h = await history(ada);
    assert.equal(h.status, 200);
    assert.equal(h.body.object, 'list');
    assert.deepEqual(
      h.body.data.map((e: any) => [e.event, e.contact_id, e.email, e.payload]),
      [
        ['user.created', ada, 'ada@example.com', {}],
        ['user.created', ada, 'ada@example.com', { plan: 'pro' }],
      ],
    );
  });

  test('sending by email records the address without creating a contact; the contact, once created, sees it in its history', async () => {
    const sent = await t.resend.events.send({
      event: 'signup.started',
      email: 'Grace@Example.com',
      payload: { source: 'ads' },
    });
    assert.deepEqual(sent.data, { object: 'event', event: 'signup.started' });
    assert.equal(
      (await t.api('GET', '/contacts/grace@example.com')).status,
      404,
      'the event did not create the contact',
    );
    const row = (
      await t.db.pool.query('SELECT contact_id, email FROM custom_events WHERE name = $1', ['signup.started'])
    ).rows[0];
    assert.deepEqual(row, { contact_id: null, email: 'grace@example.com' });
    const grace = (await t.resend.contacts.create({ email: 'grace@example.com' })).data!.id;
    const h = await history(grace);
    assert.deepEqual(
      h.body.data.map((e: any) => [e.event, e.contact_id, e.payload]),
      [['signup.started', null, { source: 'ads' }]],
    );
    // An address that is a contact's already links the event to it.
    await t.resend.events.send({ event: 'signup.finished', email: 'grace@example.com' });
    const linked = await history('grace@example.com');
    assert.deepEqual(
      linked.body.data.map((e: any) => [e.event, e.contact_id]),
      [
        ['signup.finished', grace],
        ['signup.started', null],
      ],
    );
  });

  test('exactly one of contact_id or email: both or neither is a 422 naming the fields', async () => {
    const both = await t.api('POST', '/events/send', {
      body: { event: 'x.y', contact_id: ada, email: 'ada@example.com' },
    });
    assert.equal(both.status, 422);
    assert.equal(both.body.name, 'validation_error');
    assert.match(both.body.message, /`contact_id`.*`email`/);
    const neither = await t.api('POST', '/events/send', { body: { event: 'x.y', payload: {} } });
    assert.equal(neither.status, 422);
    assert.equal(neither.body.name, 'missing_required_field');
    assert.match(neither.body.message, /`contact_id` or `email`/);
    assert.equal(await rows('x.y'), 0);
  });

  test('an unknown or malformed contact_id, a missing event name, a bad email or payload are 422s naming the field', async () => {
    const unknown = await t.resend.events.send({ event: 'x.y', contactId: '00000000-0000-4000-8000-000000000000' });
    assert.equal(unknown.error?.statusCode, 422);
    assert.match(unknown.error!.message, /`contact_id`/);
    const malformed = await t.api('POST', '/events/send', { body: { event: 'x.y', contact_id: 'nope' } });
    assert.deepEqual([malformed.status, /`contact_id`/.test(malformed.body.message)], [422, true]);
    const noName = await t.api('POST', '/events/send', { body: { contact_id: ada } });
    assert.deepEqual([noName.status, noName.body.message], [422, 'Missing `event` field.']);
    const badEmail = await t.api('POST', '/events/send', { body: { event: 'x.y', email: 'not an address' } });
    assert.deepEqual([badEmail.status, /`email`/.test(badEmail.body.message)], [422, true]);
    const badPayload = await t.api('POST', '/events/send', {
      body: { event: 'x.y', contact_id: ada, payload: [1, 2] },
    });
    assert.deepEqual([badPayload.status, /`payload`/.test(badPayload.body.message)], [422, true]);
    assert.equal(await rows('x.y'), 0);
  });

  test('names starting with resend: are reserved, for definitions and for sends', async () => {
    for (const name of ['resend:email.opened', 'RESEND:contact.created']) {
      const def = await t.resend.events.create({ name });
      assert.equal(def.error?.statusCode, 422, name);
      assert.match(def.error!.message, /`name`.*reserved/);
      const sent = await t.resend.events.send({ event: name, contactId: ada });
      assert.equal(sent.error?.statusCode, 422, name);
      assert.match(sent.error!.message, /`event`.*reserved/);
    }
    assert.equal(
      (await t.db.pool.query("SELECT count(*)::int AS n FROM custom_events WHERE lower(name) LIKE 'resend:%'")).rows[0]
        .n,
      0,
    );
  });

  test('a schema coerces each type on send: string, number, boolean and date', async () => {
    const def = await t.resend.events.create({
      name: 'plan.changed',
      schema: { plan: 'string', seats: 'number', trial: 'boolean', renews_at: 'date' },
    });
    assert.equal(def.error, null, JSON.stringify(def.error));
    const sent = await t.resend.events.send({
      event: 'plan.changed',
      contactId: ada,
      payload: { plan: 3, seats: '5', trial: 'true', renews_at: '2026-02-01', extra: { kept: true } },
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    await t.resend.events.send({
      event: 'plan.changed',
      contactId: ada,
      payload: { plan: 'pro', seats: 2.5, trial: false, renews_at: '2026-03-01T10:30:00+02:00' },
    });
    await t.resend.events.send({ event: 'plan.changed', contactId: ada, payload: { trial: '0' } }); // declared fields may be absent
    const h = await history(ada, '?limit=3');
    assert.deepEqual(
      h.body.data.map((e: any) => e.payload),
      [
        { trial: false },
        { plan: 'pro', seats: 2.5, trial: false, renews_at: '2026-03-01T08:30:00.000Z' },
        { plan: '3', seats: 5, trial: true, renews_at: '2026-02-01T00:00:00.000Z', extra: { kept: true } },
      ],
    );
  });

  test('a payload that does not fit the schema is a 422 naming payload.<field>, and nothing is recorded', async () => {
    const before = await rows('plan.changed');
    const cases: [Record<string, unknown>, string][] = [
      [{ seats: 'many' }, 'Invalid `payload.seats` field: must be a number.'],
      [{ seats: true }, 'Invalid `payload.seats` field: must be a number.'],
      [{ plan: { tier: 1 } }, 'Invalid `payload.plan` field: must be a string.'],
      [{ trial: 'yes' }, 'Invalid `payload.trial` field: must be a boolean.'],
      [
        { renews_at: 'tomorrow' },
        'Invalid `payload.renews_at` field: must be a date (ISO 8601, e.g. 2026-01-31 or 2026-01-31T09:00:00Z).',
      ],
      [
        { renews_at: '2026-13-45' },
        'Invalid `payload.renews_at` field: must be a date (ISO 8601, e.g. 2026-01-31 or 2026-01-31T09:00:00Z).',
      ],
      [
        { renews_at: '2026-02-30' },
        'Invalid `payload.renews_at` field: must be a date (ISO 8601, e.g. 2026-01-31 or 2026-01-31T09:00:00Z).',
      ],
      [
        { renews_at: '2026-01-31T25:00:00Z' },
        'Invalid `payload.renews_at` field: must be a date (ISO 8601, e.g. 2026-01-31 or 2026-01-31T09:00:00Z).',
      ],
    ];
    for (const [payload, message] of cases) {
      const r = await t.resend.events.send({ event: 'plan.changed', contactId: ada, payload });
      assert.deepEqual(
        [r.error?.statusCode, r.error?.name, r.error?.message],
        [422, 'validation_error', message],
        JSON.stringify(payload),
      );
    }
    assert.equal(await rows('plan.changed'), before);
  });

  test('an event with no definition is stored as sent', async () => {
    const payload = { seats: 'many', nested: { a: [1, 'b'] }, flag: null };
    assert.equal((await t.resend.events.send({ event: 'free.form', contactId: ada, payload })).error, null);
    assert.deepEqual((await history(ada, '?limit=1')).body.data[0].payload, payload);
  });

  test('definitions: create (201), get by id and by name, update and clear the schema, delete; names are unique and never UUIDs', async () => {
    const name = 'order shipped/v2 ✓';
    const created = await t.api('POST', '/events', { body: { name, schema: { order_id: 'string' } } });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['id', 'object']);
    assert.equal(created.body.object, 'event');
    const id = created.body.id;
    const byId = await t.resend.events.get(id);
    assert.equal(byId.error, null);
    assert.deepEqual(
      { ...byId.data, created_at: 'x' },
      { object: 'event', id, name, schema: { order_id: 'string' }, created_at: 'x', updated_at: null },
    );
    assert.match(byId.data!.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
    const byName = await t.resend.events.get(name);
    assert.equal(byName.data?.id, id);
    const updated = await t.resend.events.update(name, { schema: { order_id: 'string', total: 'number' } });
    assert.deepEqual(updated.data, { object: 'event', id });
    const after1 = (await t.resend.events.get(id)).data!;
    assert.deepEqual(after1.schema, { order_id: 'string', total: 'number' });
    assert.ok(after1.updated_at, 'updated_at is set by an update');
    await t.resend.events.update(id, { schema: null });
    assert.equal((await t.resend.events.get(id)).data!.schema, null);
    const noSchema = await t.api('PATCH', `/events/${id}`, { body: {} });
    assert.deepEqual([noSchema.status, noSchema.body.message], [422, 'Missing `schema` field.']);
    const badType = await t.resend.events.update(id, { schema: { total: 'money' as never } });
    assert.deepEqual([badType.error?.statusCode, /`schema.total`/.test(badType.error!.message)], [422, true]);
    const dup = await t.resend.events.create({ name });
    assert.deepEqual([dup.error?.statusCode, /`name`.*already exists/.test(dup.error!.message)], [422, true]);
    const uuidName = await t.resend.events.create({ name: '11111111-1111-4111-8111-111111111111' });
    assert.equal(uuidName.error?.statusCode, 422);
    const missing = await t.api('POST', '/events', { body: {} });
    assert.deepEqual([missing.status, missing.body.message], [422, 'Missing `name` field.']);
    const removed = await t.resend.events.remove(name);
    assert.deepEqual(removed.data, { object: 'event', id, deleted: true });
    const gone = await t.resend.events.get(id);
    assert.deepEqual([gone.error?.statusCode, gone.error?.message], [404, 'Event not found']);
    assert.equal((await t.resend.events.remove(id)).error?.statusCode, 404);
    assert.equal((await t.resend.events.update(name, { schema: null })).error?.statusCode, 404);
  });

  test('deleting a definition keeps the events recorded under its name, and later sends are stored as sent', async () => {
    const id = (await t.resend.events.create({ name: 'trial.ended', schema: { days: 'number' } })).data!.id;
    await t.resend.events.send({ event: 'trial.ended', contactId: ada, payload: { days: '14' } });
    await t.resend.events.remove(id);
    await t.resend.events.send({ event: 'trial.ended', contactId: ada, payload: { days: 'fourteen' } });
    assert.deepEqual(
      (await history(ada, '?limit=2')).body.data.map((e: any) => e.payload),
      [{ days: 'fourteen' }, { days: 14 }],
    );
  });

  test('definitions list newest first, paginated by limit, after and before', async () => {
    const other = await otherTeamClient(t, 'pagination team');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await other.events.create({ name: `page.${i}` })).data!.id);
    const all = await other.events.list();
    assert.deepEqual(
      all.data!.data.map((d) => d.name),
      ['page.4', 'page.3', 'page.2', 'page.1', 'page.0'],
    );
    assert.equal(all.data!.has_more, false);
    const first = await other.events.list({ limit: 2 });
    assert.deepEqual(
      [first.data!.object, first.data!.has_more, first.data!.data.map((d) => d.name)],
      ['list', true, ['page.4', 'page.3']],
    );
    assert.deepEqual(Object.keys(first.data!.data[0]).sort(), ['created_at', 'id', 'name', 'schema', 'updated_at']);
    const second = await other.events.list({ limit: 2, after: first.data!.data[1].id });
    assert.deepEqual([second.data!.has_more, second.data!.data.map((d) => d.name)], [true, ['page.2', 'page.1']]);
    const last = await other.events.list({ limit: 2, after: second.data!.data[1].id });
    assert.deepEqual([last.data!.has_more, last.data!.data.map((d) => d.name)], [false, ['page.0']]);
    const back = await other.events.list({ limit: 2, before: ids[0] });
    assert.deepEqual(
      back.data!.data.map((d) => d.name),
      ['page.2', 'page.1'],
    );
    const bad = await other.events.list({ limit: 101 });
    assert.equal(bad.error?.statusCode, 422);
  });

  test('the contact history is paginated newest first; an unknown contact is 404', async () => {
    const other = await otherTeamClient(t, 'history team');
    const cid = (await other.contacts.create({ email: 'h@example.com' })).data!.id;
    for (let i = 0; i < 5; i++)
      assert.equal((await other.events.send({ event: 'tick', contactId: cid, payload: { i } })).error, null);
    const page = async (q: string) => (await (other as Resend).get<any>(`/contacts/${cid}/events${q}`)).data;
    const p1 = await page('?limit=2');
    assert.deepEqual([p1.has_more, p1.data.map((e: any) => e.payload.i)], [true, [4, 3]]);
    const p2 = await page(`?limit=2&after=${p1.data[1].id}`);
    assert.deepEqual([p2.has_more, p2.data.map((e: any) => e.payload.i)], [true, [2, 1]]);
    const p3 = await page(`?limit=2&after=${p2.data[1].id}`);
    assert.deepEqual([p3.has_more, p3.data.map((e: any) => e.payload.i)], [false, [0]]);
    assert.deepEqual(Object.keys(p1.data[0]).sort(), [
      'contact_id',
      'created_at',
      'email',
      'event',
      'id',
      'object',
      'payload',
    ]);
    assert.equal((await t.api('GET', '/contacts/nobody@example.com/events')).status, 404);
  });

  test('Idempotency-Key: the same key and body give the same answer and one row; another body is 409; a bad key is 400', async () => {
    const body = { event: 'invoice.paid', contactId: ada, payload: { amount: 10 } } as const;
    const opts = { headers: { 'Idempotency-Key': 'invoice-paid/1' } };
    const a = await t.resend.events.send(body, opts);
    const b = await t.resend.events.send(body, opts);
    assert.equal(a.error, null, JSON.stringify(a.error));
    assert.deepEqual(b.data, a.data);
    assert.equal(await rows('invoice.paid'), 1);
    const changed = await t.resend.events.send({ ...body, payload: { amount: 11 } }, opts);
    assert.deepEqual([changed.error?.statusCode, changed.error?.name], [409, 'invalid_idempotent_request']);
    const replay = await t.api('POST', '/events/send', {
      body: { event: 'invoice.paid', contact_id: ada, payload: { amount: 10 } },
      headers: { 'idempotency-key': 'invoice-paid/1' },
    });
    assert.deepEqual([replay.status, replay.body], [202, { object: 'event', event: 'invoice.paid' }]);
    assert.equal(await rows('invoice.paid'), 1);
    // A rejected request releases its key: a corrected retry with the same key goes through.
    const rejected = await t.resend.events.send(
      { event: 'invoice.paid', contactId: 'nope' },
      { headers: { 'Idempotency-Key': 'invoice-paid/2' } },
    );
    assert.equal(rejected.error?.statusCode, 422);
    assert.equal((await t.resend.events.send(body, { headers: { 'Idempotency-Key': 'invoice-paid/2' } })).error, null);
    assert.equal(await rows('invoice.paid'), 2);
    const long = await t.resend.events.send(body, { headers: { 'Idempotency-Key': 'k'.repeat(257) } });
    assert.deepEqual([long.error?.statusCode, long.error?.name], [400, 'invalid_idempotency_key']);
    assert.equal(await rows('invoice.paid'), 2);
  });

  test('teams are isolated: definitions, contacts, histories and idempotency keys belong to one team', async () => {
    const other = await otherTeamClient(t, 'isolation team');
    const mine = (await t.resend.events.create({ name: 'team.only', schema: { n: 'number' } })).data!.id;
    assert.equal((await other.events.get(mine)).error?.statusCode, 404);
    assert.equal((await other.events.get('team.only')).error?.statusCode, 404);
    assert.equal((await other.events.remove('team.only')).error?.statusCode, 404);
    assert.equal((await other.events.update(mine, { schema: null })).error?.statusCode, 404);
    assert.ok(!(await other.events.list()).data!.data.some((d) => d.name === 'team.only'));
    // The same name is free in another team, and only its own schema applies there.
    assert.equal((await other.events.create({ name: 'team.only' })).error, null);
    const theirs = await other.events.send(
      { event: 'team.only', email: 'ada@example.com', payload: { n: 'not a number' } },
      { headers: { 'Idempotency-Key': 'shared-key' } },
    );
    assert.equal(theirs.error, null, JSON.stringify(theirs.error));
    // Our contact is unknown to them, by id and by address.
    assert.equal((await other.events.send({ event: 'x', contactId: ada })).error?.statusCode, 422);
    const row = (await t.db.pool.query('SELECT contact_id FROM custom_events WHERE name = $1', ['team.only'])).rows;
    assert.deepEqual(row, [{ contact_id: null }], 'their event for the same address is not linked to our contact');
    assert.equal((await (other as Resend).get(`/contacts/${ada}/events`)).error?.statusCode, 404);
    assert.ok(!(await history(ada)).body.data.some((e: any) => e.event === 'team.only'));
    // The same idempotency key in our team is a different key.
    const ours = await t.resend.events.send(
      { event: 'team.only', contactId: ada, payload: { n: '7' } },
      { headers: { 'Idempotency-Key': 'shared-key' } },
    );
    assert.equal(ours.error, null, JSON.stringify(ours.error));
    assert.equal(await rows('team.only'), 2);
  });

  test('every events route needs an API key, and a sending-only key cannot send events or manage definitions', async () => {
    for (const [method, path] of [
      ['POST', '/events/send'],
      ['POST', '/events'],
      ['GET', '/events'],
      ['GET', '/events/x'],
      ['PATCH', '/events/x'],
      ['DELETE', '/events/x'],
      ['GET', `/contacts/${ada}/events`],
    ]) {
      const r = await t.api(method, path, {
        key: null,
        body:
          method === 'GET' || method === 'DELETE'
            ? undefined
            : { event: 'x', contact_id: ada, name: 'x', schema: null },
      });
      assert.deepEqual([r.status, r.body.name], [401, 'missing_api_key'], `${method} ${path}`);
    }
    const sendingKey = (await t.resend.apiKeys.create({ name: 'sending only', permission: 'sending_access' })).data!
      .token;
    const r = await t.api('POST', '/events/send', { key: sendingKey, body: { event: 'x', contact_id: ada } });
    assert.deepEqual([r.status, r.body.name], [401, 'restricted_api_key']);
    assert.equal(await rows('x'), 0);
  });

  test('/openapi.json documents every events route', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    for (const [path, method] of [
      ['/events/send', 'post'],
      ['/events', 'post'],
      ['/events', 'get'],
      ['/events/{id}', 'get'],
      ['/events/{id}', 'patch'],
      ['/events/{id}', 'delete'],
      ['/contacts/{id}/events', 'get'],
    ]) {
      assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
    }
  });
});

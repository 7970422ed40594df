import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resend } from 'resend';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';

const UNKNOWN = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';

describe('contact properties through the resend SDK', () => {
  let t: TestApp;
  let b: Resend;
  before(async () => {
    t = await startTestApp();
    b = await otherTeamClient(t, 'Team B');
  });
  after(async () => {
    await t.close();
  });

  test("create answers 201 {object, id}; get, list, update and delete follow Resend's shapes", async () => {
    const raw = await t.api('POST', '/contact-properties', {
      body: { key: 'company_name', type: 'string', fallback_value: 'Acme' },
    });
    assert.equal(raw.status, 201);
    assert.deepEqual(Object.keys(raw.body), ['object', 'id']);
    assert.equal(raw.body.object, 'contact_property');
    const id = raw.body.id as string;

    const wire = (await t.api('GET', `/contact-properties/${id}`)).body;
    assert.deepEqual(Object.keys(wire), ['object', 'id', 'key', 'type', 'fallback_value', 'created_at']);
    const got = (await t.resend.contactProperties.get(id)).data!;
    assert.deepEqual(
      { ...got, createdAt: 'x' },
      { object: 'contact_property', id, key: 'company_name', type: 'string', fallbackValue: 'Acme', createdAt: 'x' },
    );
    assert.match(got.createdAt, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);

    const num = (await t.resend.contactProperties.create({ key: 'age', type: 'number' })).data!;
    const list = (await t.resend.contactProperties.list()).data!;
    assert.equal(list.object, 'list');
    assert.equal(list.has_more, false);
    assert.deepEqual(
      list.data.map((p) => [p.key, p.type, p.fallbackValue]),
      [
        ['age', 'number', null],
        ['company_name', 'string', 'Acme'],
      ],
    );

    assert.deepEqual((await t.resend.contactProperties.update({ id: num.id, fallbackValue: 18 })).data, {
      object: 'contact_property',
      id: num.id,
    });
    assert.equal((await t.resend.contactProperties.get(num.id)).data!.fallbackValue, 18);
    assert.equal(
      (await t.api('PATCH', `/contact-properties/${num.id}`, { body: { fallback_value: null } })).status,
      200,
    );
    assert.equal((await t.resend.contactProperties.get(num.id)).data!.fallbackValue, null);

    const del = await t.api('DELETE', `/contact-properties/${num.id}`);
    assert.deepEqual(del.body, { object: 'contact_property', deleted: true, id: num.id });
    assert.deepEqual(Object.keys(del.body), ['object', 'deleted', 'id']);
    assert.equal((await t.resend.contactProperties.get(num.id)).error!.name, 'not_found');
    assert.equal((await t.resend.contactProperties.remove(num.id)).error!.statusCode, 404);
  });

  test('refuses a missing or malformed key, a reserved or taken key, a bad type and a fallback of the wrong type', async () => {
    await t.resend.contactProperties.create({ key: 'plan', type: 'string' });
    const cases: [unknown, string, RegExp][] = [
      [{ type: 'string' }, 'missing_required_field', /^Missing `key` field\.$/],
      [{ key: 'k1' }, 'missing_required_field', /^Missing `type` field\.$/],
      [{ key: 'has space', type: 'string' }, 'validation_error', /`key`.*letters, digits or underscores/],
      [{ key: 'a'.repeat(51), type: 'string' }, 'validation_error', /`key`/],
      [{ key: 'line\nbreak', type: 'string' }, 'validation_error', /`key`/],
      [{ key: 42, type: 'string' }, 'validation_error', /`key`/],
      [{ key: 'Email', type: 'string' }, 'validation_error', /`key`.*reserved/],
      [{ key: '__proto__', type: 'string' }, 'validation_error', /`key`.*reserved/],
      [{ key: 'plan', type: 'string' }, 'validation_error', /`key`.*already exists/],
      [{ key: 'k2', type: 'boolean' }, 'validation_error', /`type`.*"string" or "number"/],
      [{ key: 'k3', type: 'number', fallback_value: 'ten' }, 'validation_error', /`fallback_value`.*number/],
      [{ key: 'k4', type: 'string', fallback_value: 10 }, 'validation_error', /`fallback_value`.*string/],
      [{ key: 'k5', type: 'string', fallback_value: 'x'.repeat(2001) }, 'validation_error', /`fallback_value`.*2000/],
      [{ key: 'k6', type: 'string', fallback_value: { a: 1 } }, 'validation_error', /`fallback_value`/],
    ];
    for (const [body, name, message] of cases) {
      const r = await t.api('POST', '/contact-properties', { body });
      assert.equal(r.status, 422, JSON.stringify(body).slice(0, 120));
      assert.equal(r.body.name, name, JSON.stringify(body).slice(0, 120));
      assert.match(r.body.message, message, JSON.stringify(body).slice(0, 120));
    }
    const big = await t.api('POST', '/contact-properties', {
      raw: '{"key":"k7","type":"number","fallback_value":1e400}',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([big.status, big.body.name], [422, 'validation_error']);
    const plan = (await t.resend.contactProperties.list()).data!.data.find((p) => p.key === 'plan')!;
    for (const body of [{ key: 'other' }, { type: 'number' }, { fallback_value: 3 }]) {
      const r = await t.api('PATCH', `/contact-properties/${plan.id}`, { body });
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.name, 'validation_error');
    }
    assert.equal(
      (await t.api('PATCH', `/contact-properties/${plan.id}`, { body: { key: 'plan', fallback_value: 'free' } }))
        .status,
      200,
      'the same key is not a change',
    );
    for (const [m, p] of [
      ['GET', `/contact-properties/${UNKNOWN}`],
      ['GET', '/contact-properties/nope'],
      ['PATCH', `/contact-properties/${UNKNOWN}`],
      ['DELETE', '/contact-properties/nope'],
    ] as const) {
      const r = await t.api(m, p, m === 'PATCH' ? { body: {} } : {});
      assert.deepEqual(
        r.body,
        { statusCode: 404, message: 'Contact property not found', name: 'not_found' },
        `${m} ${p}`,
      );
    }
  });

  test('contact values must use existing keys with matching types; get shows own values, else fallbacks', async () => {
    const c = await otherTeamClient(t, 'Props');
    await c.contactProperties.create({ key: 'company', type: 'string', fallbackValue: 'Acme' });
    await c.contactProperties.create({ key: 'seats', type: 'number' });
    await c.contactProperties.create({ key: 'tier', type: 'string' });
    await c.contactProperties.create({ key: 'constructor', type: 'string', fallbackValue: 'Object' }); // a name every JS object has

    const { data } = await c.contacts.create({ email: 'p@example.com', properties: { seats: 3, tier: null } });
    const id = data!.id;
    assert.deepEqual((await c.contacts.get(id)).data!.properties, {
      company: { type: 'string', value: 'Acme' },
      seats: { type: 'number', value: 3 },
      constructor: { type: 'string', value: 'Object' },
    });
    await c.contactProperties.remove(
      (await c.contactProperties.list()).data!.data.find((p) => p.key === 'constructor')!.id,
    );

    await c.contacts.update({ id, properties: { company: 'Globex', tier: 'gold' } });
    assert.deepEqual((await c.contacts.get(id)).data!.properties, {
      company: { type: 'string', value: 'Globex' },
      seats: { type: 'number', value: 3 },
      tier: { type: 'string', value: 'gold' },
    });
    await c.contacts.update({ id, properties: { company: null, seats: null } });
    assert.deepEqual(
      (await c.contacts.get(id)).data!.properties,
      { company: { type: 'string', value: 'Acme' }, tier: { type: 'string', value: 'gold' } },
      'null clears a value; the fallback shows again',
    );

    for (const [props, re] of [
      [{ seats: 'three' }, /"seats" is a number; got a string/],
      [{ company: 5 }, /"company" is a string; got a number/],
      [{ tier: true }, /string, a number or null/],
      [{ ghost: 'x' }, /"ghost" does not exist/],
      [{ tier: 'x'.repeat(2001) }, /2000/],
    ] as const) {
      const created = await c.contacts.create({ email: 'q@example.com', properties: props as never });
      assert.equal(created.error?.statusCode, 422, JSON.stringify(props).slice(0, 80));
      assert.match(created.error!.message, re);
      const updated = await c.contacts.update({ id, properties: props as never });
      assert.equal(updated.error?.statusCode, 422);
      assert.match(updated.error!.message, re);
    }
    assert.deepEqual(
      (await c.contacts.get(id)).data!.properties,
      { company: { type: 'string', value: 'Acme' }, tier: { type: 'string', value: 'gold' } },
      'unchanged',
    );
    // Another team's property of the same key does not make it valid here.
    await b.contactProperties.create({ key: 'only_b', type: 'string' });
    assert.match(
      (await c.contacts.update({ id, properties: { only_b: 'x' } })).error!.message,
      /"only_b" does not exist/,
    );

    // Deleting a property removes its values from contacts: a new property of that key starts empty.
    const tier = (await c.contactProperties.list()).data!.data.find((p) => p.key === 'tier')!;
    await c.contactProperties.remove(tier.id);
    assert.deepEqual((await c.contacts.get(id)).data!.properties, { company: { type: 'string', value: 'Acme' } });
    await c.contactProperties.create({ key: 'tier', type: 'number' });
    assert.deepEqual((await c.contacts.get(id)).data!.properties, { company: { type: 'string', value: 'Acme' } });
    const { rows } = await t.db.pool.query('SELECT properties FROM contacts WHERE id = $1', [id]);
    assert.deepEqual(rows[0].properties, {});
  });

  test("team B cannot see, change or delete team A's properties, and may use the same key", async () => {
    const a = (await t.resend.contactProperties.create({ key: 'shared_key', type: 'string' })).data!;
    assert.equal((await b.contactProperties.get(a.id)).error!.name, 'not_found');
    assert.equal((await b.contactProperties.update({ id: a.id, fallbackValue: 'x' })).error!.name, 'not_found');
    assert.equal((await b.contactProperties.remove(a.id)).error!.name, 'not_found');
    assert.ok(!(await b.contactProperties.list()).data!.data.some((p) => p.id === a.id));
    assert.ok((await b.contactProperties.create({ key: 'shared_key', type: 'number' })).data!.id);
    assert.equal((await t.resend.contactProperties.get(a.id)).data!.type, 'string');
  });

  test('a property deleted while contacts are being given values leaves no value behind', async () => {
    const c = await otherTeamClient(t, 'Race');
    const ids = await Promise.all(
      Array.from({ length: 8 }, async (_, i) => (await c.contacts.create({ email: `r${i}@example.com` })).data!.id),
    );
    for (let round = 0; round < 15; round++) {
      const p = (await c.contactProperties.create({ key: 'flaky', type: 'string' })).data!;
      await Promise.all([
        ...ids.map((id) => c.contacts.update({ id, properties: { flaky: `v${round}` } })),
        c.contactProperties.remove(p.id),
      ]);
      const { rows } = await t.db.pool.query(
        "SELECT count(*)::int AS n FROM contacts WHERE id = ANY($1::uuid[]) AND properties ? 'flaky'",
        [ids],
      );
      assert.equal(rows[0].n, 0, `round ${round}`);
    }
  });
});

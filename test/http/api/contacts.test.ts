import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resend } from 'resend';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';

const UNKNOWN = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';

describe('contacts through the resend SDK', () => {
  let t: TestApp;
  let b: Resend;
  before(async () => {
    t = await startTestApp();
    b = await otherTeamClient(t, 'Team B');
  });
  after(async () => {
    await t.close();
  });

  test('create answers 201 {object, id}; get by id and by email (any case, raw or percent-encoded) shows the contact', async () => {
    const raw = await t.api('POST', '/contacts', {
      body: { email: 'Steve.Wozniak@Example.COM', first_name: 'Steve', last_name: 'Wozniak' },
    });
    assert.equal(raw.status, 201);
    assert.deepEqual(Object.keys(raw.body), ['object', 'id']);
    assert.equal(raw.body.object, 'contact');
    const id = raw.body.id as string;

    const got = (await t.resend.contacts.get(id)).data!;
    assert.deepEqual(Object.keys(got), [
      'object',
      'id',
      'email',
      'first_name',
      'last_name',
      'created_at',
      'unsubscribed',
      'properties',
    ]);
    assert.deepEqual(
      { ...got, created_at: 'x' },
      {
        object: 'contact',
        id,
        email: 'steve.wozniak@example.com',
        first_name: 'Steve',
        last_name: 'Wozniak',
        created_at: 'x',
        unsubscribed: false,
        properties: {},
      },
    );
    assert.match(got.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00$/);

    assert.equal((await t.resend.contacts.get({ email: 'STEVE.wozniak@example.com' })).data!.id, id);
    assert.equal((await t.api('GET', '/contacts/steve.wozniak%40example.com')).body.id, id);
    assert.equal((await t.api('GET', `/contacts/${id.toUpperCase()}`)).body.id, id);
  });

  test('get of an unknown id or address, or of something that is neither, is 404 "Contact not found"', async () => {
    for (const p of [`/contacts/${UNKNOWN}`, '/contacts/nobody@example.com', '/contacts/not-an-id']) {
      const r = await t.api('GET', p);
      assert.equal(r.status, 404, p);
      assert.deepEqual(r.body, { statusCode: 404, message: 'Contact not found', name: 'not_found' });
    }
  });

  test('a second create with an address the team already has answers 200 with the existing id and changes nothing', async () => {
    const first = await t.resend.contacts.create({ email: 'dup@example.com', firstName: 'First' });
    const again = await t.api('POST', '/contacts', {
      body: { email: 'DUP@example.com', first_name: 'Second', unsubscribed: true },
    });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, { object: 'contact', id: first.data!.id });
    const got = (await t.resend.contacts.get(first.data!.id)).data!;
    assert.equal(got.first_name, 'First');
    assert.equal(got.unsubscribed, false);
    // Ten concurrent creates of one new address make one contact.
    const ids = await Promise.all(
      Array.from({ length: 10 }, () => t.api('POST', '/contacts', { body: { email: 'race@example.com' } })),
    );
    assert.equal(new Set(ids.map((r) => r.body.id)).size, 1);
    assert.deepEqual(ids.map((r) => r.status).sort(), [200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
  });

  test('update changes only the given fields; null clears a name; the email can change unless another contact has it', async () => {
    const { data } = await t.resend.contacts.create({ email: 'upd@example.com', firstName: 'A', lastName: 'B' });
    const id = data!.id;
    assert.deepEqual((await t.resend.contacts.update({ id, firstName: 'Ada', unsubscribed: true })).data, {
      object: 'contact',
      id,
    });
    let got = (await t.resend.contacts.get(id)).data!;
    assert.deepEqual([got.first_name, got.last_name, got.unsubscribed], ['Ada', 'B', true]);

    assert.equal((await t.resend.contacts.update({ email: 'UPD@example.com', lastName: null })).data!.id, id);
    got = (await t.resend.contacts.get(id)).data!;
    assert.equal(got.last_name, null);

    assert.equal((await t.api('PATCH', `/contacts/${id}`, { body: { email: 'Renamed@Example.com' } })).status, 200);
    assert.equal((await t.resend.contacts.get(id)).data!.email, 'renamed@example.com');
    await t.resend.contacts.create({ email: 'taken@example.com' });
    const clash = await t.api('PATCH', `/contacts/${id}`, { body: { email: 'taken@example.com' } });
    assert.equal(clash.status, 422);
    assert.equal(clash.body.name, 'validation_error');
    assert.match(clash.body.message, /`email`.*another contact/);

    const missing = await t.resend.contacts.update({ id: UNKNOWN, firstName: 'x' });
    assert.equal(missing.error!.name, 'not_found');
    assert.equal(missing.error!.statusCode, 404);
  });

  test('delete answers {object, contact: <path value>, deleted: true}, by id or email, and the same for a contact that never existed', async () => {
    const { data } = await t.resend.contacts.create({ email: 'del@example.com' });
    assert.deepEqual((await t.resend.contacts.remove(data!.id)).data, {
      object: 'contact',
      contact: data!.id,
      deleted: true,
    });
    assert.equal((await t.resend.contacts.get(data!.id)).error!.name, 'not_found');

    await t.resend.contacts.create({ email: 'del2@example.com' });
    assert.deepEqual((await t.resend.contacts.remove({ email: 'Del2@example.com' })).data, {
      object: 'contact',
      contact: 'Del2@example.com',
      deleted: true,
    });
    assert.equal((await t.resend.contacts.get({ email: 'del2@example.com' })).error!.name, 'not_found');

    for (const p of [UNKNOWN, 'never@example.com', 'garbage']) {
      const r = await t.api('DELETE', `/contacts/${p}`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { object: 'contact', contact: p, deleted: true });
    }
  });

  test('list is legacy: everything without a limit, pages with limit/after/before, items without properties', async () => {
    const c = await otherTeamClient(t, 'Lister');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await c.contacts.create({ email: `l${i}@example.com` })).data!.id);
    const all = (await c.contacts.list()).data!;
    assert.equal(all.object, 'list');
    assert.equal(all.has_more, false);
    assert.deepEqual(
      all.data.map((x) => x.id),
      [...ids].reverse(),
    );
    assert.deepEqual(Object.keys(all.data[0]), [
      'id',
      'email',
      'first_name',
      'last_name',
      'created_at',
      'unsubscribed',
    ]);

    const p1 = (await c.contacts.list({ limit: 2 })).data!;
    assert.deepEqual([p1.has_more, p1.data.map((x) => x.id)], [true, [ids[4], ids[3]]]);
    const p2 = (await c.contacts.list({ limit: 2, after: ids[3] })).data!;
    assert.deepEqual(
      p2.data.map((x) => x.id),
      [ids[2], ids[1]],
    );
    const back = (await c.contacts.list({ limit: 2, before: ids[1] })).data!;
    assert.deepEqual(
      back.data.map((x) => x.id),
      [ids[3], ids[2]],
    );
    for (const q of ['limit=0', 'limit=101', `after=${UNKNOWN}`, `after=${ids[0]}&before=${ids[1]}`, 'after=nope']) {
      const r = await t.api('GET', `/contacts?${q}`);
      assert.equal(r.status, 422, q);
      assert.equal(r.body.name, 'validation_error', q);
    }
  });

  test("team B cannot see, change or delete team A's contacts, and may hold the same address separately", async () => {
    const { data } = await t.resend.contacts.create({ email: 'mine@example.com', firstName: 'A' });
    const id = data!.id;
    assert.equal((await b.contacts.get(id)).error!.name, 'not_found');
    assert.equal((await b.contacts.get({ email: 'mine@example.com' })).error!.name, 'not_found');
    assert.equal((await b.contacts.update({ id, firstName: 'B' })).error!.name, 'not_found');
    assert.equal((await b.contacts.remove(id)).data!.deleted, true); // Resend's answer, but nothing happens:
    assert.equal((await t.resend.contacts.get(id)).data!.first_name, 'A');
    assert.ok(!(await b.contacts.list()).data!.data.some((x) => x.id === id));
    assert.equal((await b.contacts.list({ limit: 1, after: id })).error!.name, 'validation_error');

    const theirs = await b.contacts.create({ email: 'mine@example.com' });
    assert.notEqual(theirs.data!.id, id);
    assert.equal((await b.contacts.get({ email: 'mine@example.com' })).data!.id, theirs.data!.id);
  });

  test('validation errors name the field with the right status and name', async () => {
    const long = 'x'.repeat(300);
    const cases: [unknown, number, string, RegExp][] = [
      [{}, 422, 'missing_required_field', /^Missing `email` field\.$/],
      [{ email: '' }, 422, 'missing_required_field', /^Missing `email` field\.$/],
      [{ email: null }, 422, 'missing_required_field', /^Missing `email` field\.$/],
      [{ email: 42 }, 422, 'validation_error', /`email`.*string/],
      [{ email: 'not an address' }, 422, 'validation_error', /`email`/],
      [{ email: 'Steve <s@example.com>' }, 422, 'validation_error', /`email`.*bare address/],
      [{ email: 'a@b' }, 422, 'validation_error', /`email`/],
      [{ email: `${'a'.repeat(70)}@example.com` }, 422, 'validation_error', /`email`/],
      [{ email: `a@${'b'.repeat(300)}.com` }, 422, 'validation_error', /`email`/],
      [{ email: 'x@example.com\r\nBcc: y@example.com' }, 422, 'validation_error', /`email`.*line breaks/],
      [
        { email: 'ok@example.com', first_name: 'Eve\r\nBcc: x@example.com' },
        422,
        'validation_error',
        /`first_name`.*line breaks/,
      ],
      [{ email: 'ok@example.com', last_name: 'a\nb' }, 422, 'validation_error', /`last_name`.*line breaks/],
      [{ email: 'ok@example.com', first_name: 'nul\u0000' }, 422, 'validation_error', /`first_name`/],
      [{ email: 'ok@example.com', first_name: long }, 422, 'validation_error', /`first_name`.*256/],
      [{ email: 'ok@example.com', first_name: 7 }, 422, 'validation_error', /`first_name`.*string/],
      [{ email: 'ok@example.com', last_name: ['x'] }, 422, 'validation_error', /`last_name`/],
      [{ email: 'ok@example.com', unsubscribed: 'yes' }, 422, 'validation_error', /`unsubscribed`.*true or false/],
      [{ email: 'ok@example.com', properties: 'x' }, 422, 'validation_error', /`properties`.*object/],
      [{ email: 'ok@example.com', properties: [1] }, 422, 'validation_error', /`properties`.*object/],
      [{ email: 'ok@example.com', properties: { nope: 'x' } }, 422, 'validation_error', /"nope" does not exist/],
      [
        { email: 'ok@example.com', properties: { nope: { deep: true } } },
        422,
        'validation_error',
        /string, a number or null/,
      ],
      [
        { email: 'ok@example.com', segments: [{ id: UNKNOWN }] },
        422,
        'validation_error',
        /`segments`.*no segment has the id/,
      ],
      [{ email: 'ok@example.com', segments: [UNKNOWN] }, 422, 'validation_error', /`segments`.*no segment has the id/],
      [{ email: 'ok@example.com', segments: 'x' }, 422, 'validation_error', /`segments`.*array/],
      [{ email: 'ok@example.com', segments: [{}] }, 422, 'validation_error', /`segments\[0\]\.id`/],
      [
        { email: 'ok@example.com', topics: [{ id: UNKNOWN, subscription: 'opt_in' }] },
        422,
        'validation_error',
        /`topics`.*no topic has the id/,
      ],
      [
        { email: 'ok@example.com', topics: [{ id: UNKNOWN, subscription: 'maybe' }] },
        422,
        'validation_error',
        /`topics\[0\]\.subscription`/,
      ],
      [
        { email: 'ok@example.com', audience_id: UNKNOWN },
        422,
        'validation_error',
        /`audience_id`.*no audience has the id/,
      ],
      [[], 422, 'validation_error', /body/],
    ];
    for (const [body, status, name, message] of cases) {
      const r = await t.api('POST', '/contacts', { body });
      assert.equal(r.status, status, JSON.stringify(body).slice(0, 200));
      assert.equal(r.body.name, name, JSON.stringify(body).slice(0, 200));
      assert.match(r.body.message, message, JSON.stringify(body).slice(0, 200));
    }
    // Empty references name nothing and are fine; no contact was created by any refused request.
    assert.equal(
      (await t.api('POST', '/contacts', { body: { email: 'refs@example.com', segments: [], topics: [] } })).status,
      201,
    );
    assert.equal((await t.api('GET', '/contacts/ok@example.com')).status, 404);
    const noBody = await t.api('POST', '/contacts', { headers: { 'content-type': 'application/json' } });
    assert.deepEqual(
      [noBody.status, noBody.body.name, noBody.body.message],
      [422, 'validation_error', 'Invalid request body: must be object.'],
    ); // as every endpoint
    const bad = await t.api('POST', '/contacts', {
      raw: '{"email": "x@example.com",',
      headers: { 'content-type': 'application/json' },
    });
    assert.deepEqual([bad.status, bad.body.name], [400, 'validation_error']);
    const huge = await t.api('POST', '/contacts', {
      body: { email: 'big@example.com', first_name: 'y'.repeat(5_000_000) },
    });
    assert.ok([413, 422].includes(huge.status), String(huge.status));
    assert.equal(huge.body.name, 'validation_error');
  });

  test('update refuses bad fields the same way and changes nothing', async () => {
    const { data } = await t.resend.contacts.create({ email: 'strict@example.com', firstName: 'Kept' });
    const id = data!.id;
    for (const [body, re] of [
      [{ first_name: 'a\r\nb' }, /`first_name`/],
      [{ email: '' }, /Missing `email`/],
      [{ email: 'bad' }, /`email`/],
      [{ unsubscribed: 1 }, /`unsubscribed`/],
      [{ properties: { missing: 1 } }, /"missing" does not exist/],
      [{ segments: [{ id: UNKNOWN }] }, /`segments`/],
    ] as const) {
      const r = await t.api('PATCH', `/contacts/${id}`, { body });
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.match(r.body.message, re);
    }
    assert.equal((await t.resend.contacts.get(id)).data!.first_name, 'Kept');
  });

  test('the legacy audience routes and segment filters name an audience or segment, which cannot exist yet: 404', async () => {
    const { data } = await t.resend.contacts.create({ email: 'aud@example.com' });
    const viaSdk = await t.resend.contacts.create({ audienceId: UNKNOWN, email: 'legacy@example.com' });
    assert.equal(viaSdk.error!.name, 'not_found');
    assert.match(viaSdk.error!.message, /^Audience not found/);
    assert.equal((await t.resend.contacts.get({ audienceId: UNKNOWN, id: data!.id })).error!.statusCode, 404);
    assert.equal(
      (await t.resend.contacts.update({ audienceId: UNKNOWN, id: data!.id, firstName: 'x' })).error!.name,
      'not_found',
    );
    assert.equal((await t.resend.contacts.remove({ audienceId: UNKNOWN, id: data!.id })).error!.name, 'not_found');
    const list = await t.resend.contacts.list({ segmentId: UNKNOWN });
    assert.match(list.error!.message, /^Segment not found/);
    assert.equal((await t.api('GET', `/audiences/${UNKNOWN}/contacts`)).status, 404);
    assert.equal((await t.api('GET', `/contacts?segment_id=${UNKNOWN}`)).status, 404);
    assert.equal((await t.resend.contacts.get(data!.id)).data!.first_name, null, 'untouched');
  });

  test('the contact paths are in the OpenAPI document', async () => {
    const doc = (await t.api('GET', '/openapi.json', { key: null })).body;
    for (const p of [
      '/contacts',
      '/contacts/{id}',
      '/contact-properties',
      '/contact-properties/{id}',
      '/audiences/{audience_id}/contacts',
    ])
      assert.ok(doc.paths[p], p);
  });

  test('contact imports are their own routes, never taken for a contact ("Contact not found")', async () => {
    const list = await t.resend.contacts.imports.list();
    assert.equal(list.error, null, JSON.stringify(list.error));
    assert.equal(list.data!.object, 'list');
    const one = await t.resend.contacts.imports.get('b6d24b8e-af0b-4c3c-be0c-359bbd97381e');
    assert.equal(one.error?.message, 'Contact import not found');
  });
});

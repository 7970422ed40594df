import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';

describe('webhook endpoints through the resend SDK', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ allowPrivateNetworks: true });
  });
  after(async () => {
    await t.close();
  });

  test("create answers 201 with the id and a whsec_ secret; get, list, update, rotate and delete follow Resend's shapes", async () => {
    const raw = await t.api('POST', '/webhooks', {
      body: { endpoint: 'http://127.0.0.1:9/hook', events: ['email.sent', 'email.delivered'] },
    });
    assert.equal(raw.status, 201);
    assert.deepEqual(Object.keys(raw.body), ['object', 'id', 'signing_secret']);
    assert.equal(raw.body.object, 'webhook');
    assert.match(raw.body.signing_secret, /^whsec_/);
    const id = raw.body.id as string;

    const got = (await t.resend.webhooks.get(id)).data!;
    assert.deepEqual(
      { ...got, created_at: 'x' },
      {
        object: 'webhook',
        id,
        created_at: 'x',
        status: 'enabled',
        endpoint: 'http://127.0.0.1:9/hook',
        events: ['email.sent', 'email.delivered'],
        signing_secret: raw.body.signing_secret,
      },
    );
    assert.match(got.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d/);

    const list = (await t.resend.webhooks.list()).data!;
    assert.equal(list.object, 'list');
    const item = list.data.find((w) => w.id === id)!;
    assert.deepEqual(Object.keys(item).sort(), ['created_at', 'endpoint', 'events', 'id', 'status']);

    assert.deepEqual((await t.resend.webhooks.update(id, { events: ['email.bounced'], status: 'disabled' })).data, {
      object: 'webhook',
      id,
    });
    const updated = (await t.resend.webhooks.get(id)).data!;
    assert.equal(updated.status, 'disabled');
    assert.deepEqual(updated.events, ['email.bounced']);

    const rotated = (await t.resend.webhooks.rotateSigningSecret(id)).data!;
    assert.equal(rotated.object, 'webhook');
    assert.notEqual(rotated.signing_secret, raw.body.signing_secret);
    assert.equal((await t.resend.webhooks.get(id)).data!.signing_secret, rotated.signing_secret);

    assert.deepEqual((await t.resend.webhooks.remove(id)).data, { object: 'webhook', id, deleted: true });
    const gone = await t.resend.webhooks.get(id);
    assert.equal(gone.error?.name, 'not_found');
  });

  test('the signing secret is sealed at rest', async () => {
    const { data } = await t.resend.webhooks.create({ endpoint: 'http://127.0.0.1:9/x', events: ['email.sent'] });
    const { rows } = await t.db.pool.query('SELECT secret_sealed FROM webhooks WHERE id = $1', [data!.id]);
    assert.ok(!rows[0].secret_sealed.includes(data!.signing_secret.slice(6)), 'not stored in clear');
    assert.match(rows[0].secret_sealed, /^v1:/);
  });

  test('refuses a missing endpoint, a non-URL, an empty or unknown event list, and a bad status', async () => {
    const cases: [unknown, number, string, RegExp][] = [
      [{ events: ['email.sent'] }, 422, 'missing_required_field', /Missing `endpoint`/],
      [{ endpoint: 'http://127.0.0.1/x' }, 422, 'missing_required_field', /Missing `events`/],
      [{ endpoint: 'not a url', events: ['email.sent'] }, 422, 'validation_error', /`endpoint`/],
      [{ endpoint: 'ftp://example.com/x', events: ['email.sent'] }, 422, 'validation_error', /http or https/],
      [{ endpoint: 'http://127.0.0.1/x', events: [] }, 422, 'validation_error', /at least one/],
      [
        { endpoint: 'http://127.0.0.1/x', events: ['email.exploded'] },
        422,
        'validation_error',
        /unknown event type "email.exploded"/,
      ],
    ];
    for (const [body, status, name, message] of cases) {
      const r = await t.api('POST', '/webhooks', { body });
      assert.equal(r.status, status, JSON.stringify(body));
      assert.equal(r.body.name, name);
      assert.match(r.body.message, message);
    }
    const { data } = await t.resend.webhooks.create({ endpoint: 'http://127.0.0.1:9/x', events: ['email.sent'] });
    const bad = await t.api('PATCH', `/webhooks/${data!.id}`, { body: { status: 'paused' } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /"enabled" or "disabled"/);
  });

  test('an unknown or malformed id is 404 not_found everywhere', async () => {
    for (const [m, p] of [
      ['GET', '/webhooks/nope'],
      ['PATCH', '/webhooks/1b4e28ba-2fa1-11d2-883f-0016d3cca427'],
      ['DELETE', '/webhooks/1b4e28ba-2fa1-11d2-883f-0016d3cca427'],
      ['GET', '/webhooks/1b4e28ba-2fa1-11d2-883f-0016d3cca427/events'],
      ['POST', '/webhooks/1b4e28ba-2fa1-11d2-883f-0016d3cca427/signing-secret/rotate'],
    ] as const) {
      const r = await t.api(m, p, m === 'PATCH' ? { body: {} } : {});
      assert.equal(r.status, 404, `${m} ${p}`);
      assert.equal(r.body.name, 'not_found');
    }
  });

  test('the webhook paths are in the OpenAPI document', async () => {
    const doc = (await t.api('GET', '/openapi.json', { key: null })).body;
    for (const p of [
      '/webhooks',
      '/webhooks/{id}',
      '/webhooks/{id}/signing-secret/rotate',
      '/webhooks/{id}/events',
      '/webhooks/{id}/events/{message_id}',
      '/webhooks/{id}/events/{message_id}/attempts',
      '/webhooks/{id}/events/{message_id}/replay',
    ])
      assert.ok(doc.paths[p], p);
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/t/')), 'tracking routes are not API');
  });
});

describe('webhook endpoints and private networks (MAILROOM_ALLOW_PRIVATE_NETWORKS unset)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('refuses endpoints on loopback, private, link-local (metadata) addresses, on create and on update', async () => {
    for (const endpoint of [
      'http://127.0.0.1:8080/hook',
      'http://localhost/hook',
      'https://10.1.2.3/x',
      'http://169.254.169.254/latest/meta-data',
      'http://[::1]/x',
      'http://[::ffff:192.168.0.1]/x',
    ]) {
      const r = await t.api('POST', '/webhooks', { body: { endpoint, events: ['email.sent'] } });
      assert.equal(r.status, 422, endpoint);
      assert.equal(r.body.name, 'validation_error');
      assert.match(r.body.message, /not allowed/, endpoint);
    }
    const ok = await t.api('POST', '/webhooks', {
      body: { endpoint: 'https://93.184.215.14/hook', events: ['email.sent'] },
    });
    assert.equal(ok.status, 201);
    const r = await t.api('PATCH', `/webhooks/${ok.body.id}`, { body: { endpoint: 'http://192.168.1.1/x' } });
    assert.equal(r.status, 422);
    assert.match(r.body.message, /private address/);
  });
});

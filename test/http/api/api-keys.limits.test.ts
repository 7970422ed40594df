// Issue 29, team security step 3: API keys with an optional expiry and allowed source networks
// (Mailroom extensions on POST /api-keys). The SDK creates keys as before (the fields are optional);
// raw requests add the extensions. An expired key, or one used from outside its networks, is refused
// 401 restricted_api_key (Resend-shaped), through the SDK too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resend } from 'resend';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { SMTP_TEST_LISTENERS, transport } from '../../helpers/smtp-submit.js';

describe('API key expiry and allowed networks', () => {
  let t: TestApp;
  const create = (body: Record<string, unknown>) => t.api('POST', '/api-keys', { body: { name: 'limited', ...body } });
  const domainsWith = (token: string, headers: Record<string, string> = {}) =>
    t.api('GET', '/domains', { key: token, headers });
  before(async () => {
    // The loopback peer is a trusted proxy, so X-Forwarded-For can play clients from elsewhere (IPv6 too).
    t = await startTestApp({
      trustProxy: ['127.0.0.1'],
      roles: ['api', 'worker', 'smtp'],
      smtpListen: SMTP_TEST_LISTENERS,
    });
  });
  after(async () => {
    await t.close();
  });

  test('the SDK creates keys as before: no expiry, any network', async () => {
    const { data, error } = await t.resend.apiKeys.create({ name: 'plain' });
    assert.equal(error, null);
    const sdk = new Resend(data!.token, { baseUrl: t.url });
    assert.equal((await sdk.domains.list()).error, null);
    assert.equal((await domainsWith(data!.token, { 'x-forwarded-for': '2001:db8::1' })).status, 200);
  });

  test('bad extensions are refused 422 naming the field', async () => {
    const tooMany = Array.from({ length: 51 }, (_, i) => `10.0.${i}.0/24`);
    for (const [body, field] of [
      [{ expires_at: 'tomorrow' }, 'expires_at'],
      [{ expires_at: '2001-01-01T00:00:00Z' }, 'expires_at'],
      [{ expires_at: '2999-01-01T00:00:00Z' }, 'expires_at'],
      [{ expires_at: 12 }, 'expires_at'],
      [{ allowed_networks: '10.0.0.0/8' }, 'allowed_networks'],
      [{ allowed_networks: [] }, 'allowed_networks'],
      [{ allowed_networks: tooMany }, 'allowed_networks'],
      [{ allowed_networks: ['10.0.0.0/8', '10.0.0.0/33'] }, 'allowed_networks[1]'],
      [{ allowed_networks: ['2001:db8::/129'] }, 'allowed_networks[0]'],
      [{ allowed_networks: ['example.com'] }, 'allowed_networks[0]'],
      [{ allowed_networks: [7] }, 'allowed_networks[0]'],
    ] as const) {
      const r = await create(body);
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.equal(r.body.name, 'validation_error');
      assert.ok(r.body.message.includes(`\`${field}\``), `${JSON.stringify(body)}: ${r.body.message}`);
    }
    // 50 networks is the limit, not over it
    const fifty = await create({ allowed_networks: tooMany.slice(0, 50).concat() });
    assert.equal(fifty.status, 201);
  });

  test('a key limited to networks works inside them (IPv4 and IPv6) and is refused 401 outside', async () => {
    const r = await create({ allowed_networks: ['127.0.0.0/8', '2001:db8:1::/48', '198.51.100.7'] });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const token = r.body.token;
    const sdk = new Resend(token, { baseUrl: t.url });
    assert.equal((await sdk.domains.list()).error, null); // from 127.0.0.1
    assert.equal((await domainsWith(token, { 'x-forwarded-for': '2001:db8:1:ff::9' })).status, 200);
    assert.equal((await domainsWith(token, { 'x-forwarded-for': '198.51.100.7' })).status, 200);
    for (const from of ['198.51.100.8', '2001:db8:2::1', '10.1.2.3']) {
      const out = await domainsWith(token, { 'x-forwarded-for': from });
      assert.equal(out.status, 401, from);
      assert.deepEqual(Object.keys(out.body).sort(), ['message', 'name', 'statusCode']);
      assert.equal(out.body.name, 'restricted_api_key');
      assert.match(out.body.message, /not allowed from this network/);
    }
    // The dashboard's key table shows the limits
    const listed = await t.api('GET', '/dashboard-api/api-keys');
    assert.equal(listed.status, 200);
    const row = listed.body.data.find((k: { id: string }) => k.id === r.body.id);
    assert.deepEqual(row.allowed_networks, ['127.0.0.0/8', '2001:db8:1::/48', '198.51.100.7/32']);
    assert.equal(row.expires_at, null);
  });

  test('SMTP AUTH with a key checks its networks against the connection', async () => {
    const inside = (await create({ allowed_networks: ['127.0.0.0/8'] })).body.token;
    const outside = (await create({ allowed_networks: ['10.0.0.0/8', '::1/128'] })).body.token;
    assert.equal(await transport(t, 'starttls', { pass: inside }).verify(), true);
    await assert.rejects(transport(t, 'starttls', { pass: outside }).verify(), (err: Error & { response?: string }) => {
      assert.match(err.response ?? '', /not allowed from this network/);
      return true;
    });
  });

  test('the SDK sees the refusal as a Resend error', async () => {
    const r = await create({ allowed_networks: ['192.0.2.0/24'] });
    const sdk = new Resend(r.body.token, { baseUrl: t.url });
    const { data, error } = await sdk.domains.list();
    assert.equal(data, null);
    assert.equal(error?.name, 'restricted_api_key');
  });

  test('a key past its expiry is refused 401 (also while cached), and the creation is audited', async () => {
    const expires = new Date(Date.now() + 1500).toISOString();
    const r = await create({ expires_at: expires, allowed_networks: ['127.0.0.1/32'] });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal((await domainsWith(r.body.token)).status, 200); // now cached for a few seconds
    await new Promise((res) => setTimeout(res, Math.max(0, Date.parse(expires) - Date.now() + 50)));
    const late = await domainsWith(r.body.token);
    assert.equal(late.status, 401);
    assert.equal(late.body.name, 'restricted_api_key');
    assert.match(late.body.message, /expired/);
    const { rows } = await t.db.pool.query(
      `SELECT summary FROM audit_log WHERE action = 'api_key.created' AND target_id = $1`,
      [r.body.id],
    );
    assert.deepEqual(rows[0].summary.after, {
      name: 'limited',
      permission: 'full_access',
      domain_id: null,
      expires_at: expires,
      allowed_networks: ['127.0.0.1/32'],
    });
  });

  test('PATCH changes and lifts the limits, takes effect at once, and audits before and after', async () => {
    const r = await create({ allowed_networks: ['192.0.2.0/24'] });
    const { id, token } = r.body;
    assert.equal((await domainsWith(token)).status, 401, 'not from loopback');
    const open = await t.api('PATCH', `/api-keys/${id}`, { body: { allowed_networks: ['127.0.0.0/8'] } });
    assert.deepEqual([open.status, open.body], [200, { object: 'api_key', id }]);
    assert.equal((await domainsWith(token)).status, 200, 'the new networks apply at once');
    const expires = new Date(Date.now() + 86_400_000).toISOString();
    const both = await t.api('PATCH', `/api-keys/${id}`, { body: { expires_at: expires, allowed_networks: null } });
    assert.equal(both.status, 200, JSON.stringify(both.body));
    assert.equal((await domainsWith(token, { 'x-forwarded-for': '2001:db8::1' })).status, 200, 'any network now');
    const listed = await t.api('GET', '/api-keys');
    const k = listed.body.data.find((x: { id: string }) => x.id === id);
    assert.equal(Date.parse(k.expires_at), Date.parse(expires), 'GET /api-keys carries the limits');
    assert.equal(k.allowed_networks, null);
    // The name alone, as before; a bad limit is 422 naming the field and changes nothing.
    assert.equal((await t.api('PATCH', `/api-keys/${id}`, { body: { name: 'renamed' } })).status, 200);
    const bad = await t.api('PATCH', `/api-keys/${id}`, { body: { allowed_networks: ['10.0.0.0/33'] } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /`allowed_networks\[0\]`/);
    const nothing = await t.api('PATCH', `/api-keys/${id}`, { body: {} });
    assert.equal(nothing.status, 422, JSON.stringify(nothing.body));
    const unknown = await t.api('PATCH', '/api-keys/3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11', {
      body: { expires_at: null },
    });
    assert.equal(unknown.status, 404);
    const { rows } = await t.db.pool.query(
      `SELECT summary FROM audit_log WHERE action = 'api_key.updated' AND target_id = $1 ORDER BY seq`,
      [id],
    );
    assert.deepEqual(
      rows.map((x) => x.summary),
      [
        { before: { allowed_networks: ['192.0.2.0/24'] }, after: { allowed_networks: ['127.0.0.0/8'] } },
        {
          before: { expires_at: null, allowed_networks: ['127.0.0.0/8'] },
          after: { expires_at: expires, allowed_networks: null },
        },
        { before: { name: 'limited' }, after: { name: 'renamed' } },
      ],
    );
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/harness.js';

describe('API keys through the official resend SDK', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('creates a key shaped like Resend (id, object "list", re_ token) and lists it without the token', async () => {
    const { data, error, headers } = await t.resend.apiKeys.create({ name: 'Production' });
    assert.equal(error, null);
    assert.match(data!.id, /^[0-9a-f-]{36}$/);
    assert.match(data!.token, /^re_[A-Za-z0-9]{8}_[A-Za-z0-9]{24}$/);
    assert.equal((data as unknown as { object: string }).object, 'list');
    assert.equal(headers!['content-type'], 'application/json; charset=utf-8');
    const list = await t.resend.apiKeys.list();
    assert.equal(list.error, null);
    const item = list.data!.data.find((k) => k.id === data!.id)!;
    assert.equal(item.name, 'Production');
    assert.match(item.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+\+00$/);
    assert.equal(item.last_used_at, null);
    assert.equal(JSON.stringify(list.data).includes(data!.token), false);
  });

  test('a new key authenticates, and stops authenticating once deleted', async () => {
    const { data } = await t.resend.apiKeys.create({ name: 'temp' });
    assert.equal((await t.api('GET', '/domains', { key: data!.token })).status, 200);
    const del = await t.resend.apiKeys.remove(data!.id);
    assert.equal(del.error, null);
    assert.deepEqual(del.data, { object: 'list', id: data!.id, deleted: true } as never);
    const r = await t.api('GET', '/domains', { key: data!.token });
    assert.equal(r.status, 403);
    assert.deepEqual(r.body, { statusCode: 403, message: 'API key is invalid.', name: 'invalid_api_key' });
  });

  test('deleting an unknown key is 404 "API key not found"', async () => {
    const { error } = await t.resend.apiKeys.remove('3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11');
    assert.deepEqual(error, { statusCode: 404, message: 'API key not found', name: 'not_found' });
  });

  test('an unknown permission is 422 invalid_access', async () => {
    const { error } = await t.resend.apiKeys.create({ name: 'x', permission: 'admin' as never });
    assert.deepEqual(error, {
      statusCode: 422,
      message: 'Access must be "full_access" | "sending_access".',
      name: 'invalid_access',
    });
  });

  test('a missing name is 422 missing_required_field naming the field', async () => {
    const r = await t.api('POST', '/api-keys', { body: {} });
    assert.deepEqual(r.body, { statusCode: 422, message: 'Missing `name` field.', name: 'missing_required_field' });
  });

  test('an empty or blank name is 422 naming the field, and no key is made', async () => {
    for (const name of ['', '   ']) {
      const { error } = await t.resend.apiKeys.create({ name });
      assert.deepEqual(error, {
        statusCode: 422,
        message: 'Invalid `name` field: must not be empty.',
        name: 'validation_error',
      });
    }
    const list = await t.resend.apiKeys.list();
    assert.ok(!list.data!.data.some((k) => !k.name.trim()), 'no nameless key');
  });

  test('a sending_access key is refused outside the send endpoints with 401 restricted_api_key', async () => {
    const { data } = await t.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const r = await t.api('GET', '/api-keys', { key: data!.token });
    assert.equal(r.status, 401);
    assert.deepEqual(r.body, {
      statusCode: 401,
      message: 'This API key is restricted to only send emails.',
      name: 'restricted_api_key',
    });
  });

  test("a sending_access key may be bound to one of the team's domains, and not to an unknown one", async () => {
    const dom = await t.resend.domains.create({ name: 'bound.example.com' });
    const ok = await t.resend.apiKeys.create({ name: 'bound', permission: 'sending_access', domain_id: dom.data!.id });
    assert.equal(ok.error, null);
    const bad = await t.resend.apiKeys.create({
      name: 'bound',
      permission: 'sending_access',
      domain_id: '3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11',
    });
    assert.equal(bad.error!.name, 'not_found');
  });

  test('no Authorization header is 401 missing_api_key', async () => {
    const r = await t.api('GET', '/api-keys', { key: null });
    assert.deepEqual(r.body, {
      statusCode: 401,
      message: 'Missing API key in the authorization header.',
      name: 'missing_api_key',
    });
  });

  test('the bootstrap key exists once even after a restart of the app on the same database', async () => {
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM api_keys WHERE name = 'Bootstrap'");
    assert.equal(rows[0].n, 1);
    assert.equal(await t.app.apiKeys.ensure(t.app.defaultTeamId, t.key, 'Bootstrap'), false);
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { ERRORS, EMITTED_NAMES } from '../../src/errors.js';

// The 21 "classic" names that the Node, PHP and .NET SDKs know (resend-compat.md 3.2).
const CLASSIC = [
  'invalid_idempotency_key',
  'validation_error',
  'missing_api_key',
  'restricted_api_key',
  'invalid_api_key',
  'not_found',
  'method_not_allowed',
  'invalid_idempotent_request',
  'concurrent_idempotent_requests',
  'invalid_attachment',
  'invalid_from_address',
  'invalid_access',
  'invalid_parameter',
  'invalid_region',
  'missing_required_field',
  'daily_quota_exceeded',
  'monthly_quota_exceeded',
  'rate_limit_exceeded',
  'security_error',
  'application_error',
  'internal_server_error',
];

test("the error table emits only the SDKs' classic names, each with a status and an SMTP reply", () => {
  for (const name of EMITTED_NAMES) assert.ok(CLASSIC.includes(name), `${name} is not a classic Resend error name`);
  for (const [code, spec] of Object.entries(ERRORS)) {
    assert.ok(spec.status >= 400 && spec.status < 600, code);
    assert.ok([4, 5].includes(Math.floor(spec.smtp.code / 100)), code);
    assert.match(spec.smtp.enhanced, new RegExp(`^${Math.floor(spec.smtp.code / 100)}\\.\\d{1,3}\\.\\d{1,3}$`), code);
  }
});

describe('errors on the wire', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  const isResendError = (r: { status: number; headers: Headers; body: any }, status: number, name: string) => {
    assert.equal(r.status, status);
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.deepEqual(Object.keys(r.body), ['statusCode', 'message', 'name']);
    assert.equal(r.body.statusCode, status);
    assert.equal(r.body.name, name);
    assert.ok(!/at .*\.ts:\d+/.test(r.body.message), 'no stack trace');
  };

  test('an unknown route is 404 not_found in JSON', async () => {
    isResendError(await t.api('GET', '/nope'), 404, 'not_found');
    isResendError(await t.api('GET', '/nope', { key: null }), 404, 'not_found');
  });

  test('a known path with another method is 405 method_not_allowed with Allow', async () => {
    const r = await t.api('PUT', '/domains');
    isResendError(r, 405, 'method_not_allowed');
    assert.match(r.headers.get('allow')!, /GET/);
    isResendError(await t.api('POST', '/domains/3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11'), 405, 'method_not_allowed');
  });

  test('duplicate slashes are collapsed, as some SDKs join base URLs that way', async () => {
    assert.equal((await t.api('GET', '//domains')).status, 200);
    assert.equal((await t.api('GET', '/domains/')).status, 200);
  });

  test('malformed JSON is 400 validation_error', async () => {
    const r = await t.api('POST', '/domains', { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
    isResendError(r, 400, 'validation_error');
    assert.match(r.body.message, /not valid JSON/);
  });

  test('a non-JSON content type is 400 validation_error', async () => {
    isResendError(
      await t.api('POST', '/domains', {
        raw: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      400,
      'validation_error',
    );
  });

  test('an empty body with a JSON content type is no body (SDKs send it on POST /verify)', async () => {
    const r = await t.api('POST', '/domains/3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11/verify', {
      raw: '',
      headers: { 'content-type': 'application/json' },
    });
    isResendError(r, 404, 'not_found');
  });

  test('a body over the limit is 413 with a clear message', async () => {
    const r = await t.api('POST', '/domains', { body: { name: 'x'.repeat(2 * 1024 * 1024) } });
    isResendError(r, 413, 'validation_error');
    assert.match(r.body.message, /too large|larger/);
  });

  test('a wrong type names the field', async () => {
    const r = await t.api('POST', '/domains', { body: { name: 'a.example.com', open_tracking: 'yes' } });
    isResendError(r, 422, 'validation_error');
    assert.match(r.body.message, /`open_tracking`/);
  });

  test('a bad key is 403 invalid_api_key; a malformed header is 401 missing_api_key', async () => {
    isResendError(await t.api('GET', '/domains', { key: 're_nope' }), 403, 'invalid_api_key');
    isResendError(
      await t.api('GET', '/domains', { key: null, headers: { authorization: 'Basic abc' } }),
      401,
      'missing_api_key',
    );
  });

  test('an invalid log id is 422 invalid_parameter; an unknown one 404 "Log not found"', async () => {
    const r = await t.api('GET', '/logs/abc');
    isResendError(r, 422, 'invalid_parameter');
    assert.equal(r.body.message, 'The `logId` must be a valid UUID.');
    const n = await t.api('GET', '/logs/3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11');
    isResendError(n, 404, 'not_found');
    assert.equal(n.body.message, 'Log not found');
  });

  test("pagination errors are 422 validation_error with Resend's message", async () => {
    const r = await t.api('GET', '/domains?limit=500');
    isResendError(r, 422, 'validation_error');
    assert.match(r.body.message, /^The pagination limit must be a number between 1 and 100/);
    isResendError(
      await t.api(
        'GET',
        '/domains?after=3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11&before=3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11',
      ),
      422,
      'validation_error',
    );
    isResendError(await t.api('GET', '/domains?after=3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11'), 422, 'validation_error');
  });

  test('health, readiness and the OpenAPI document need no key', async () => {
    assert.deepEqual((await t.api('GET', '/health', { key: null })).body, { status: 'ok' });
    assert.deepEqual((await t.api('GET', '/ready', { key: null })).body, { status: 'ready' });
    const doc = (await t.api('GET', '/openapi.json', { key: null })).body;
    assert.equal(doc.openapi, '3.1.0');
    for (const p of ['/api-keys', '/domains', '/domains/{id}', '/domains/{id}/verify', '/logs', '/logs/{id}'])
      assert.ok(doc.paths[p], p);
    const page = await fetch(t.url + '/docs');
    assert.match(page.headers.get('content-type')!, /text\/html/);
  });
});

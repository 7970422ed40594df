// What the dashboard learns of capture mode through its own HTTP calls, a browser's cookies and
// all: the state names the delivery mode (the banner on every page hangs on it), and the domain
// health the Deliverability page reads says "not checked" while the domain itself stays verified.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient } from '../helpers/dashboard-client.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1', name: 'Olive Owner' };

describe('the dashboard API in capture mode', () => {
  let t: TestApp;
  let owner: DashboardClient;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dnsServers: ['127.0.0.1:9'] });
    owner = new DashboardClient(t.url);
  });
  after(async () => {
    await t.close();
  });

  test('the state says delivery_mode "capture" before sign-in and after', async () => {
    assert.equal((await owner.get('/dashboard-api/state')).body.delivery_mode, 'capture');
    assert.equal((await owner.post('/dashboard-api/setup', OWNER)).status, 200);
    const s = await owner.get('/dashboard-api/state');
    assert.deepEqual([s.body.signed_in, s.body.delivery_mode], [true, 'capture']);
  });

  test('a verified domain reads "verified" record by record, and its health "not_checked" with the reason', async () => {
    const created = await owner.post('/domains', { name: 'example.com' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((await owner.post(`/domains/${created.body.id}/verify`)).status, 200);
    const dom = await owner.get(`/domains/${created.body.id}`);
    assert.equal(dom.body.status, 'verified');
    assert.deepEqual([...new Set(dom.body.records.map((r: { status: string }) => r.status))], ['verified']);
    const health = await owner.get(`/domains/${created.body.id}/health`);
    assert.deepEqual([health.status, health.body.status, health.body.checks.length], [200, 'not_checked', 0]);
    assert.match(health.body.notice, /capture mode/i);
  });
});

describe('the dashboard API delivering for real', () => {
  test('the state says delivery_mode "mx"', async () => {
    const t = await startTestApp();
    try {
      assert.equal((await new DashboardClient(t.url).get('/dashboard-api/state')).body.delivery_mode, 'mx');
    } finally {
      await t.close();
    }
  });
});

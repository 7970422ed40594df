import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient } from '../helpers/dashboard-client.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

describe('password reset through Mailroom itself', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@example.com>' });
    const { data } = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(data!.id);
    await new DashboardClient(t.url).post('/dashboard-api/setup', OWNER);
  });
  after(async () => { await t.close(); });

  const resetEmails = async () => (await t.api('GET', '/emails?limit=100')).body.data.filter((e: any) => e.subject === 'Reset your Mailroom password');

  test('asking for a link sends one email through the send path; unknown addresses get the same answer and no email', async () => {
    const c = new DashboardClient(t.url);
    assert.equal((await c.get('/dashboard-api/state')).body.password_reset, true);
    const unknown = await c.post('/dashboard-api/password/forgot', { email: 'nobody@example.com' });
    const known = await c.post('/dashboard-api/password/forgot', { email: OWNER.email });
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.body, known.body);
    const sent = await resetEmails();
    assert.equal(sent.length, 1);
    assert.deepEqual(sent[0].to, [OWNER.email]);
    assert.match(sent[0].from, /no-reply@example.com/);
  });

  test('the link sets a new password once and signs the user out everywhere', async () => {
    const before = new DashboardClient(t.url);
    await before.post('/dashboard-api/login', OWNER);
    const [mail] = await resetEmails();
    const full = await t.api('GET', `/emails/${mail.id}`);
    const token = /\/dashboard\/reset\/([A-Za-z0-9]{40})/.exec(full.body.text)![1];
    const c = new DashboardClient(t.url);
    assert.equal((await c.get(`/dashboard-api/password/reset/${token}`)).body.valid, true);
    assert.equal((await c.post('/dashboard-api/password/reset', { token, password: 'short' })).status, 422);
    assert.equal((await c.post('/dashboard-api/password/reset', { token, password: 'a-brand-new-password' })).status, 200);
    assert.equal((await c.post('/dashboard-api/password/reset', { token, password: 'yet-another-password' })).status, 422);
    assert.equal((await before.get('/domains')).status, 401);
    assert.equal((await c.post('/dashboard-api/login', OWNER)).status, 401);
    assert.equal((await c.post('/dashboard-api/login', { email: OWNER.email, password: 'a-brand-new-password' })).status, 200);
  });

  test('the raw MIME of the reset email is readable by the team\'s session', async () => {
    const c = new DashboardClient(t.url);
    await c.post('/dashboard-api/login', { email: OWNER.email, password: 'a-brand-new-password' });
    const [mail] = await resetEmails();
    const raw = await c.get(`/dashboard-api/emails/${mail.id}/raw`);
    assert.equal(raw.status, 200);
    assert.match(raw.body, /^Subject: Reset your Mailroom password/m);
  });
});

describe('password reset without a configured sender', () => {
  let t: TestApp;
  before(async () => { t = await startTestApp(); });
  after(async () => { await t.close(); });

  test('the state says reset by email is off, and asking explains why', async () => {
    const c = new DashboardClient(t.url);
    assert.equal((await c.get('/dashboard-api/state')).body.password_reset, false);
    const r = await c.post('/dashboard-api/password/forgot', { email: 'someone@example.com' });
    assert.equal(r.status, 422);
    assert.match(r.body.message, /MAILROOM_DASHBOARD_FROM/);
  });
});

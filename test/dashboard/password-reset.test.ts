import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient, systemMailTo } from '../helpers/dashboard-client.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

describe('password reset through Mailroom itself', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@example.com>' });
    const { data } = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(data!.id);
    await new DashboardClient(t.url).post('/dashboard-api/setup', OWNER);
  });
  after(async () => {
    await t.close();
  });

  const linkIn = (text: string | undefined) => /\/dashboard\/reset\/([A-Za-z0-9]{40})/.exec(text ?? '')![1];

  test('asking for a link sends one email through the send path; unknown addresses get the same answer and no email', async () => {
    const c = new DashboardClient(t.url);
    assert.equal((await c.get('/dashboard-api/state')).body.password_reset, true);
    const unknown = await c.post('/dashboard-api/password/forgot', { email: 'nobody@example.com' });
    const known = await c.post('/dashboard-api/password/forgot', { email: OWNER.email });
    assert.equal(unknown.status, 200);
    assert.deepEqual(unknown.body, known.body);
    const mail = await systemMailTo(t, OWNER.email);
    assert.ok(mail, 'the reset email was committed');
    assert.equal(mail.subject, 'Reset your Mailroom password');
    assert.match(mail.raw, /^From: Mailroom <no-reply@example\.com>/m);
    assert.match(mail.raw, /^Subject: Reset your Mailroom password/m);
    assert.equal(await systemMailTo(t, 'nobody@example.com'), undefined);
    const { rows } = await t.db.pool.query(
      `SELECT count(*)::int AS n FROM email_events WHERE email_id = $1 AND type = 'email.delivered'`,
      [mail.id],
    );
    for (let i = 0; i < 100 && rows[0].n === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      rows[0] = (
        await t.db.pool.query(
          `SELECT count(*)::int AS n FROM email_events WHERE email_id = $1 AND type = 'email.delivered'`,
          [mail.id],
        )
      ).rows[0];
    }
    assert.equal(rows[0].n, 1, 'the reset email is delivered like any other');
  });

  test("the reset email is readable by no team: not through the SDK with a full-access key, not as raw MIME by the domain owner's session", async () => {
    const mail = (await systemMailTo(t, OWNER.email))!;
    const list = await t.resend.emails.list({ limit: 100 });
    assert.equal(list.error, null);
    assert.ok(
      !list.data!.data.some((e) => e.id === mail.id || e.subject === 'Reset your Mailroom password'),
      'not listed',
    );
    const got = await t.resend.emails.get(mail.id);
    assert.equal(got.data, null);
    assert.equal(got.error?.name, 'not_found');
    const owner = new DashboardClient(t.url);
    await owner.post('/dashboard-api/login', OWNER);
    assert.equal((await owner.get(`/dashboard-api/emails/${mail.id}/raw`)).status, 404);
    assert.equal((await owner.get(`/emails/${mail.id}`)).status, 404);
    const events = await t.api('GET', `/emails/${mail.id}/events`);
    assert.notEqual(events.status, 200);
  });

  test('the link sets a new password once and signs the user out everywhere', async () => {
    const before = new DashboardClient(t.url);
    await before.post('/dashboard-api/login', OWNER);
    const token = linkIn((await systemMailTo(t, OWNER.email))!.text);
    const c = new DashboardClient(t.url);
    assert.equal((await c.get(`/dashboard-api/password/reset/${token}`)).body.valid, true);
    assert.equal((await c.post('/dashboard-api/password/reset', { token, password: 'short' })).status, 422);
    assert.equal(
      (await c.post('/dashboard-api/password/reset', { token, password: 'a-brand-new-password' })).status,
      200,
    );
    assert.equal(
      (await c.post('/dashboard-api/password/reset', { token, password: 'yet-another-password' })).status,
      422,
    );
    assert.equal((await before.get('/domains')).status, 401);
    assert.equal((await c.post('/dashboard-api/login', OWNER)).status, 401);
    assert.equal(
      (await c.post('/dashboard-api/login', { email: OWNER.email, password: 'a-brand-new-password' })).status,
      200,
    );
  });

  test('a newer link retires the older one, and a link expires after 30 minutes', async () => {
    const c = new DashboardClient(t.url);
    await t.db.pool.query('DELETE FROM login_throttle');
    await c.post('/dashboard-api/password/forgot', { email: OWNER.email });
    const first = linkIn((await systemMailTo(t, OWNER.email))!.text);
    await new Promise((r) => setTimeout(r, 5)); // a later created_at
    await c.post('/dashboard-api/password/forgot', { email: OWNER.email });
    const second = linkIn((await systemMailTo(t, OWNER.email))!.text);
    assert.notEqual(first, second);
    assert.equal((await c.get(`/dashboard-api/password/reset/${first}`)).body.valid, false);
    assert.equal((await c.get(`/dashboard-api/password/reset/${second}`)).body.valid, true);
    const { rows } = await t.db.pool.query(
      `SELECT extract(epoch FROM expires_at - now())::int AS s FROM password_resets WHERE used_at IS NULL`,
    );
    assert.equal(rows.length, 1);
    assert.ok(rows[0].s > 29 * 60 && rows[0].s <= 30 * 60, `expires in ${rows[0].s} s`);
    await t.db.pool.query(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
    assert.equal(
      (await c.post('/dashboard-api/password/reset', { token: second, password: 'too-late-password' })).status,
      422,
    );
  });
});

describe('password reset without a configured sender', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('the state says reset by email is off, and asking explains why', async () => {
    const c = new DashboardClient(t.url);
    assert.equal((await c.get('/dashboard-api/state')).body.password_reset, false);
    const r = await c.post('/dashboard-api/password/forgot', { email: 'someone@example.com' });
    assert.equal(r.status, 422);
    assert.match(r.body.message, /MAILROOM_DASHBOARD_FROM/);
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient, inviteSignupConfirmed } from '../helpers/dashboard-client.js';
import { totp } from '../../src/dashboard-auth/totp.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

describe('two-factor sign-in', () => {
  let t: TestApp;
  let owner: DashboardClient;
  let secret: string;
  let recovery: string[];
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
    await owner.post('/dashboard-api/setup', OWNER);
  });
  after(async () => {
    await t.close();
  });

  test('enrolment: a secret sealed at rest, confirmed by a code, returns ten recovery codes', async () => {
    const s = await owner.post('/dashboard-api/account/totp/setup');
    assert.equal(s.status, 200);
    secret = s.body.secret;
    assert.match(decodeURIComponent(s.body.otpauth_uri), /^otpauth:\/\/totp\/Mailroom:owner@example\.com\?secret=/);
    const { rows } = await t.db.pool.query('SELECT totp_secret, totp_enabled FROM users');
    assert.ok(!rows[0].totp_secret.includes(secret), 'the secret is sealed');
    assert.equal(rows[0].totp_enabled, false);
    assert.equal((await owner.post('/dashboard-api/account/totp/enable', { code: '000000' })).status, 422);
    const e = await owner.post('/dashboard-api/account/totp/enable', { code: totp(secret) });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    recovery = e.body.recovery_codes;
    assert.equal(recovery.length, 10);
    const stored = await t.db.pool.query('SELECT code_hash FROM recovery_codes');
    assert.equal(stored.rowCount, 10);
    assert.ok(
      stored.rows.every((r) => /^[0-9a-f]{64}$/.test(r.code_hash)),
      'recovery codes are stored hashed',
    );
  });

  test('a password alone gives a pending session that cannot use the API', async () => {
    const c = new DashboardClient(t.url);
    const r = await c.post('/dashboard-api/login', OWNER);
    assert.equal(r.status, 200);
    assert.equal(r.body.mfa_required, true);
    assert.equal((await c.get('/domains')).status, 401);
    assert.equal((await c.get('/dashboard-api/team')).status, 401);
    assert.equal((await c.get('/dashboard-api/state')).body.mfa_pending, true);
  });

  test('a TOTP code completes sign-in, under a new session token; the same code cannot be replayed', async () => {
    const c = new DashboardClient(t.url);
    await c.post('/dashboard-api/login', OWNER);
    const pendingToken = c.jar.get('mailroom_session');
    const code = totp(secret, Date.now() + 30_000); // next step: the enrolment code used this one
    const r = await c.post('/dashboard-api/login/mfa', { code });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.notEqual(c.jar.get('mailroom_session'), pendingToken);
    assert.equal((await c.get('/domains')).status, 200);
    const d = new DashboardClient(t.url);
    await d.post('/dashboard-api/login', OWNER);
    assert.equal((await d.post('/dashboard-api/login/mfa', { code })).status, 422);
  });

  test('a recovery code works once', async () => {
    const c = new DashboardClient(t.url);
    await c.post('/dashboard-api/login', OWNER);
    const r = await c.post('/dashboard-api/login/mfa', { code: recovery[0].toUpperCase() });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.recovery_codes_left, 9);
    const d = new DashboardClient(t.url);
    await d.post('/dashboard-api/login', OWNER);
    assert.equal((await d.post('/dashboard-api/login/mfa', { code: recovery[0] })).status, 422);
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  test('wrong codes are throttled', async () => {
    const c = new DashboardClient(t.url);
    await c.post('/dashboard-api/login', OWNER);
    for (let i = 0; i < 5; i++)
      assert.equal((await c.post('/dashboard-api/login/mfa', { code: 'aaaaa-bbbbb' })).status, 422);
    assert.equal((await c.post('/dashboard-api/login/mfa', { code: recovery[1] })).status, 429);
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  test('an owner can require MFA; a member without it may only enrol', async () => {
    assert.equal((await owner.req('PATCH', '/dashboard-api/team', { require_mfa: true })).status, 200);
    const inv = await owner.post('/dashboard-api/team/invites', { role: 'admin', email: 'ada@example.com' });
    const token = inv.body.url.split('/').pop();
    const wrongEmail = await new DashboardClient(t.url).post(`/dashboard-api/invites/${token}/signup`, {
      email: 'eve@example.com',
      password: 'eve-password-1',
    });
    assert.equal(wrongEmail.status, 403);
    const ada = new DashboardClient(t.url);
    assert.equal(
      (await inviteSignupConfirmed(t, ada, token, { email: 'ada@example.com', password: 'admin-password-1' })).status,
      200,
    );
    const st = await ada.get('/dashboard-api/state');
    assert.equal(st.body.mfa_setup_required, true);
    const blocked = await ada.get('/domains');
    assert.equal(blocked.status, 403);
    assert.match(blocked.body.message, /requires two-factor/);
    const s = await ada.post('/dashboard-api/account/totp/setup');
    assert.equal(s.status, 200);
    assert.equal((await ada.post('/dashboard-api/account/totp/enable', { code: totp(s.body.secret) })).status, 200);
    assert.equal((await ada.get('/domains')).status, 200);
  });

  test('turning TOTP off needs a current code', async () => {
    assert.equal((await owner.req('PATCH', '/dashboard-api/team', { require_mfa: false })).status, 200);
    assert.equal((await owner.post('/dashboard-api/account/totp/disable', { code: '123456' })).status, 422);
    await t.db.pool.query(`UPDATE users SET totp_last_step = 0 WHERE email = $1`, [OWNER.email]); // earlier tests spent the nearby steps
    assert.equal((await owner.post('/dashboard-api/account/totp/disable', { code: totp(secret) })).status, 200);
    const r = await new DashboardClient(t.url).post('/dashboard-api/login', OWNER);
    assert.equal(r.body.mfa_required, false);
  });
});

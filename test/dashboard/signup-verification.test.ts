import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient, inviteSignupConfirmed, systemMailTo } from '../helpers/dashboard-client.js';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth.js';
import { closeAll } from '../helpers/close-all.js';

const SECRET = 'fake-client-secret';
const OWNER = { email: 'owner@company.test', password: 'owner-password-1' };

describe('an account with a password is usable only once its address is proven', () => {
  let t: TestApp;
  let gh: FakeOAuth;
  let owner: DashboardClient;
  before(async () => {
    gh = await startFakeOAuth(SECRET);
    t = await startTestApp({
      deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>',
      githubClientId: 'gh-client', githubClientSecret: SECRET, githubOauthUrl: gh.url, githubApiUrl: gh.url,
    });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
    await owner.post('/dashboard-api/setup', OWNER);
  });
  after(() => closeAll(() => t.close(), () => gh.close()));

  const invite = async (body: object) => (await owner.post('/dashboard-api/team/invites', body)).body.url.split('/').pop() as string;

  async function githubSignIn(c: DashboardClient, query = '') {
    const start = await c.get(`/dashboard-api/oauth/github/start${query}`);
    const back = await gh.authorize(start.headers.get('location')!);
    const cb = await c.get(back.pathname + back.search);
    return new URL(cb.headers.get('location')!);
  }

  test('an email-bound invite refuses another address before creating anything', async () => {
    const token = await invite({ role: 'member', email: 'bound@company.test' });
    const r = await new DashboardClient(t.url).post(`/dashboard-api/invites/${token}/signup`, { email: 'eve@evil.test', password: 'eve-password-12' });
    assert.equal(r.status, 403);
    const { rows } = await t.db.pool.query(`SELECT 1 FROM users WHERE email = 'eve@evil.test'`);
    assert.equal(rows.length, 0, 'no account was created');
    assert.equal(await systemMailTo(t, 'eve@evil.test'), undefined);
  });

  test('sign-up sends a link and neither signs in nor joins; the password does not work until the link is opened', async () => {
    const token = await invite({ role: 'member' });
    const c = new DashboardClient(t.url);
    const r = await c.post(`/dashboard-api/invites/${token}/signup`, { email: 'nia@company.test', password: 'nia-password-12' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { verification_sent: true, email: 'nia@company.test' });
    assert.equal((await c.get('/dashboard-api/state')).body.signed_in, false);
    const login = await new DashboardClient(t.url).post('/dashboard-api/login', { email: 'nia@company.test', password: 'nia-password-12' });
    assert.equal(login.status, 403);
    assert.match(login.body.message, /Confirm your email address/);
    assert.equal((await owner.get('/dashboard-api/team')).body.members.length, 1, 'not a member yet');
    const mail = await systemMailTo(t, 'nia@company.test');
    assert.match(mail!.subject, /Confirm your email/);
    const link = /\/dashboard\/verify\/([A-Za-z0-9]{40})/.exec(mail!.text)![1];
    const v = await c.post('/dashboard-api/verify', { token: link });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.equal((await c.get('/domains')).status, 200);
    assert.equal((await owner.get('/dashboard-api/team')).body.members.length, 2);
    assert.equal((await new DashboardClient(t.url).post('/dashboard-api/verify', { token: link })).status, 404, 'the link works once');
    assert.equal((await new DashboardClient(t.url).post('/dashboard-api/login', { email: 'nia@company.test', password: 'nia-password-12' })).status, 200);
  });

  test('the confirmation mail is held by no team', async () => {
    const mail = (await systemMailTo(t, 'nia@company.test'))!;
    assert.equal((await t.resend.emails.get(mail.id)).error?.name, 'not_found');
  });

  test('the reproduced chain fails: a pre-registered password never reaches the victim\'s account or team', async () => {
    // The attacker opens an unbound invite with the victim's address and its own password.
    const token = await invite({ role: 'admin' });
    const attacker = new DashboardClient(t.url);
    assert.equal((await attacker.post(`/dashboard-api/invites/${token}/signup`, { email: 'victim@company.test', password: 'attacker-password' })).status, 200);
    // The victim later signs in with GitHub (a verified email) through a new invite of the company.
    const victimInvite = await invite({ role: 'admin', email: 'victim@company.test' });
    gh.identity = { id: '777', name: 'Victim', emails: [{ email: 'victim@company.test', verified: true, primary: true }] };
    const victim = new DashboardClient(t.url);
    const to = await githubSignIn(victim, `?invite=${victimInvite}`);
    assert.equal(to.pathname, '/dashboard/emails', to.toString());
    assert.equal((await victim.get('/domains')).status, 200, 'the victim is in the team');
    // The attacker's password does not open the account, and the attacker's link no longer works.
    const tryIt = await new DashboardClient(t.url).post('/dashboard-api/login', { email: 'victim@company.test', password: 'attacker-password' });
    assert.equal(tryIt.status, 401);
    const { rows } = await t.db.pool.query(`SELECT count(*)::int AS n FROM email_verifications v JOIN users u ON u.id = v.user_id WHERE u.email = 'victim@company.test' AND v.used_at IS NULL`);
    assert.equal(rows[0].n, 0);
  });

  test('without system mail, password sign-up from an invite is refused with the reason', async () => {
    const t2 = await startTestApp();
    try {
      const o = new DashboardClient(t2.url);
      await o.post('/dashboard-api/setup', OWNER);
      const token = (await o.post('/dashboard-api/team/invites', { role: 'member' })).body.url.split('/').pop();
      const r = await new DashboardClient(t2.url).post(`/dashboard-api/invites/${token}/signup`, { email: 'x@company.test', password: 'x-password-123' });
      assert.equal(r.status, 422);
      assert.match(r.body.message, /MAILROOM_DASHBOARD_FROM/);
    } finally { await t2.close(); }
  });

  test('the helper used by other tests really goes through the link', async () => {
    const token = await invite({ role: 'member' });
    const c = new DashboardClient(t.url);
    assert.equal((await inviteSignupConfirmed(t, c, token, { email: 'ola@company.test', password: 'ola-password-12' })).status, 200);
    assert.equal((await c.get('/dashboard-api/state')).body.user.email, 'ola@company.test');
  });
});

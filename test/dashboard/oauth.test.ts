import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth.js';
import { closeAll } from '../helpers/close-all.js';

const SECRET = 'fake-client-secret';
const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

describe('OAuth sign-in against a fake provider on loopback', () => {
  let t: TestApp;
  let gh: FakeOAuth;
  before(async () => {
    gh = await startFakeOAuth(SECRET);
    t = await startTestApp({
      githubClientId: 'gh-client',
      githubClientSecret: SECRET,
      githubOauthUrl: gh.url,
      githubApiUrl: gh.url,
      googleClientId: 'g-client',
      googleClientSecret: SECRET,
      googleAuthUrl: `${gh.url}/o/oauth2/v2/auth`,
      googleTokenUrl: `${gh.url}/token`,
      googleUserinfoUrl: `${gh.url}/userinfo`,
    });
    await new DashboardClient(t.url).post('/dashboard-api/setup', OWNER);
  });
  after(() =>
    closeAll(
      () => t.close(),
      () => gh.close(),
    ),
  );

  /** start → provider consent → callback, in one browser; returns the final redirect. */
  async function signIn(c: DashboardClient, provider: string, opts: { tamperState?: boolean; query?: string } = {}) {
    const start = await c.get(`/dashboard-api/oauth/${provider}/start${opts.query ?? ''}`);
    assert.equal(start.status, 302);
    const loc = new URL(start.headers.get('location')!);
    assert.equal(loc.searchParams.get('code_challenge_method'), 'S256');
    assert.match(loc.searchParams.get('code_challenge')!, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(loc.searchParams.get('state')!.length >= 32);
    const back = await gh.authorize(loc.toString());
    if (opts.tamperState) back.searchParams.set('state', 'forged-state-value-forged-state-value');
    const cb = await c.get(back.pathname + back.search);
    assert.equal(cb.status, 302);
    return new URL(cb.headers.get('location')!);
  }

  test('the state lists the configured providers', async () => {
    const s = await new DashboardClient(t.url).get('/dashboard-api/state');
    assert.deepEqual(s.body.oauth.sort(), ['github', 'google']);
  });

  test("a GitHub account with the owner's VERIFIED email signs in as the owner and is linked", async () => {
    gh.identity = {
      id: '1001',
      name: 'Octo',
      emails: [
        { email: 'other@example.com', verified: true, primary: true },
        { email: 'OWNER@example.com', verified: true, primary: false },
      ],
    };
    const c = new DashboardClient(t.url);
    const to = await signIn(c, 'github');
    assert.equal(to.pathname, '/dashboard/emails');
    const st = await c.get('/dashboard-api/state');
    assert.equal(st.body.signed_in, true);
    assert.equal(st.body.user.email, OWNER.email);
    assert.equal((await c.get('/domains')).status, 200);
    const linked = await t.db.pool.query(`SELECT provider, subject FROM oauth_accounts`);
    assert.deepEqual(linked.rows, [{ provider: 'github', subject: '1001' }]);
    // The token request carried the PKCE verifier and the configured secret.
    const last = gh.tokenRequests.at(-1)!;
    assert.ok(last.get('code_verifier')!.length >= 43);
  });

  test('a forged state is refused and nothing is signed in', async () => {
    const c = new DashboardClient(t.url);
    const to = await signIn(c, 'github', { tamperState: true });
    assert.equal(to.pathname, '/dashboard/login');
    assert.match(to.searchParams.get('error')!, /expired or did not start here/);
    assert.equal((await c.get('/dashboard-api/state')).body.signed_in, false);
  });

  test('a code issued for another flow fails PKCE at the provider', async () => {
    const victim = new DashboardClient(t.url);
    const attacker = new DashboardClient(t.url);
    const a = await victim.get('/dashboard-api/oauth/github/start');
    const b = await attacker.get('/dashboard-api/oauth/github/start');
    const codeForA = await gh.authorize(a.headers.get('location')!);
    const stateB = new URL(b.headers.get('location')!).searchParams.get('state')!;
    codeForA.searchParams.set('state', stateB); // B's browser, B's state and verifier, A's code
    const cb = await attacker.get(codeForA.pathname + codeForA.search);
    assert.match(new URL(cb.headers.get('location')!).searchParams.get('error')!, /provider answered 400/);
    assert.equal((await attacker.get('/dashboard-api/state')).body.signed_in, false);
  });

  test('an unverified Google email is refused, even when it matches an account', async () => {
    gh.identity = { id: 'g-77', name: 'Gee', emails: [{ email: OWNER.email, verified: false, primary: true }] };
    const c = new DashboardClient(t.url);
    const to = await signIn(c, 'google');
    assert.match(to.searchParams.get('error')!, /no verified email/);
    assert.equal((await c.get('/dashboard-api/state')).body.signed_in, false);
  });

  test('a verified email with no account and no invite is refused', async () => {
    gh.identity = {
      id: 'g-78',
      name: 'Stranger',
      emails: [{ email: 'stranger@example.com', verified: true, primary: true }],
    };
    const to = await signIn(new DashboardClient(t.url), 'google');
    assert.match(to.searchParams.get('error')!, /No Mailroom account uses stranger@example.com/);
  });

  test('with an invite link, a verified Google account creates a member of that team', async () => {
    const owner = new DashboardClient(t.url);
    await owner.post('/dashboard-api/login', OWNER);
    const inv = await owner.post('/dashboard-api/team/invites', { role: 'member' });
    const token = inv.body.url.split('/').pop();
    gh.identity = {
      id: 'g-79',
      name: 'New Person',
      emails: [{ email: 'new@example.com', verified: true, primary: true }],
    };
    const c = new DashboardClient(t.url);
    const to = await signIn(c, 'google', { query: `?invite=${token}` });
    assert.equal(to.pathname, '/dashboard/emails', to.toString());
    const st = await c.get('/dashboard-api/state');
    assert.equal(st.body.user.email, 'new@example.com');
    assert.equal(st.body.team.role, 'member');
  });

  test('an unconfigured provider is 404', async () => {
    assert.equal((await new DashboardClient(t.url).get('/dashboard-api/oauth/gitlab/start')).status, 404);
  });
});

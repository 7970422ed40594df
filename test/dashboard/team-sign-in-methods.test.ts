// Issue 29, team security step 4: the sign-in methods a team allows (password, google, github),
// enforced at sign-in (password and OAuth), on team switches, and on sessions that signed in a way
// the team no longer allows (refused 401 and deleted on their next request).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth.js';
import { closeAll } from '../helpers/close-all.js';
import { storeCheapPassword } from '../helpers/cheap-password.js';

const SECRET = 'fake-client-secret';
const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

describe('allowed sign-in methods per team', () => {
  let t: TestApp;
  let fake: FakeOAuth;
  let byPassword: DashboardClient;
  let byGoogle: DashboardClient;
  before(async () => {
    fake = await startFakeOAuth(SECRET);
    fake.identity = { id: '77', name: 'Olive', emails: [{ email: OWNER.email, verified: true, primary: true }] };
    t = await startTestApp({
      githubClientId: 'gh-client',
      githubClientSecret: SECRET,
      githubOauthUrl: fake.url,
      githubApiUrl: fake.url,
      googleClientId: 'g-client',
      googleClientSecret: SECRET,
      googleAuthUrl: `${fake.url}/o/oauth2/v2/auth`,
      googleTokenUrl: `${fake.url}/token`,
      googleUserinfoUrl: `${fake.url}/userinfo`,
    });
    byPassword = new DashboardClient(t.url);
    assert.equal((await byPassword.post('/dashboard-api/setup', OWNER)).status, 200);
    await storeCheapPassword(t.db.pool, OWNER.email, OWNER.password);
  });
  after(() =>
    closeAll(
      () => t.close(),
      () => fake.close(),
    ),
  );

  /** start → provider consent → callback; the final redirect. */
  async function oauth(c: DashboardClient, provider: 'google' | 'github'): Promise<URL> {
    const start = await c.get(`/dashboard-api/oauth/${provider}/start`);
    assert.equal(start.status, 302);
    const back = await fake.authorize(start.headers.get('location')!);
    const cb = await c.get(back.pathname + back.search);
    assert.equal(cb.status, 302);
    await c.get('/dashboard-api/state'); // the SPA's first call: it hands over the CSRF token
    return new URL(cb.headers.get('location')!, t.url);
  }

  test('all three are allowed by default; Google signs in', async () => {
    const team = await byPassword.get('/dashboard-api/team');
    assert.deepEqual(team.body.security.sign_in_methods, ['password', 'google', 'github']);
    byGoogle = new DashboardClient(t.url);
    assert.equal((await oauth(byGoogle, 'google')).pathname, '/dashboard/emails');
    assert.equal((await byGoogle.get('/domains')).status, 200);
  });

  test('bad lists are refused 422 naming the field; one cannot drop the method one signed in with', async () => {
    for (const v of ['password', [], ['password', 'password'], ['email'], ['google', 'github', 'password', 'x']]) {
      const r = await byPassword.req('PATCH', '/dashboard-api/team', { sign_in_methods: v });
      assert.equal(r.status, 422, JSON.stringify(v));
      assert.match(r.body.message, /`sign_in_methods`/);
    }
    const self = await byPassword.req('PATCH', '/dashboard-api/team', { sign_in_methods: ['google'] });
    assert.equal(self.status, 422);
    assert.match(self.body.message, /must include password/);
  });

  test('Google only: password sessions end, password and GitHub sign-ins are refused', async () => {
    const r = await byGoogle.req('PATCH', '/dashboard-api/team', { sign_in_methods: ['google'] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body.sign_in_methods, ['google']);
    const { rows } = await t.db.pool.query(
      `SELECT summary FROM audit_log WHERE action = 'team.security_changed' ORDER BY seq DESC LIMIT 1`,
    );
    assert.deepEqual(rows[0].summary, {
      before: { sign_in_methods: ['password', 'google', 'github'] },
      after: { sign_in_methods: ['google'] },
    });
    // the password session is refused and deleted; the Google one lives on
    assert.equal((await byPassword.get('/domains')).status, 401);
    const left = await t.db.pool.query(`SELECT sign_in_method FROM sessions`);
    assert.deepEqual(
      left.rows.map((x) => x.sign_in_method),
      ['google'],
    );
    assert.equal((await byGoogle.get('/domains')).status, 200);
    const login = await new DashboardClient(t.url).post('/dashboard-api/login', OWNER);
    assert.equal(login.status, 403);
    assert.match(login.body.message, /does not allow signing in with a password/);
    const gh = await oauth(new DashboardClient(t.url), 'github');
    assert.equal(gh.pathname, '/dashboard/login');
    assert.match(gh.searchParams.get('error')!, /does not allow signing in with GitHub/);
    assert.equal((await oauth(new DashboardClient(t.url), 'google')).pathname, '/dashboard/emails');
  });

  test('with a second team, a password sign-in opens there and cannot switch into the Google-only team', async () => {
    const defaultTeam = (await byGoogle.get('/dashboard-api/state')).body.team.id;
    assert.equal((await byGoogle.post('/dashboard-api/teams', { name: 'Open' })).status, 200);
    const c = new DashboardClient(t.url);
    assert.equal((await c.post('/dashboard-api/login', OWNER)).status, 200);
    const st = await c.get('/dashboard-api/state');
    assert.equal(st.body.team.name, 'Open');
    const sw = await c.post('/dashboard-api/teams/switch', { team_id: defaultTeam });
    assert.equal(sw.status, 403);
    assert.match(sw.body.message, /does not allow signing in with a password/);
    assert.equal((await c.get('/dashboard-api/state')).body.team.name, 'Open');
    // a Google session switches back freely
    assert.equal((await byGoogle.post('/dashboard-api/teams/switch', { team_id: defaultTeam })).status, 200);
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient, inviteSignupConfirmed } from '../helpers/dashboard-client.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1', name: 'Olive Owner' };

describe('dashboard sessions', () => {
  let t: TestApp;
  let owner: DashboardClient;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
  });
  after(async () => {
    await t.close();
  });

  test('before setup, the state says so and the API refuses a browser without a session', async () => {
    const s = await owner.get('/dashboard-api/state');
    assert.equal(s.status, 200);
    assert.equal(s.body.setup_needed, true);
    assert.equal(s.body.signed_in, false);
    const r = await owner.get('/domains');
    assert.equal(r.status, 401);
    assert.equal(r.body.name, 'missing_api_key');
  });

  test('first-run setup creates the owner and signs in with a HttpOnly, SameSite=Lax session cookie', async () => {
    const weak = await owner.post('/dashboard-api/setup', { email: OWNER.email, password: 'short' });
    assert.equal(weak.status, 422);
    const r = await owner.post('/dashboard-api/setup', OWNER);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const session = r.setCookies.find((c) => c.startsWith('mailroom_session='))!;
    assert.match(session, /HttpOnly/);
    assert.match(session, /SameSite=Lax/);
    assert.doesNotMatch(session, /Secure/); // http public URL
    const s = await owner.get('/dashboard-api/state');
    assert.equal(s.body.signed_in, true);
    assert.equal(s.body.setup_needed, false);
    assert.equal(s.body.team.role, 'owner');
    assert.equal(s.body.user.email, OWNER.email);
  });

  test('setup cannot run twice', async () => {
    const r = await new DashboardClient(t.url).post('/dashboard-api/setup', {
      email: 'intruder@example.com',
      password: 'intruder-pass-1',
    });
    assert.equal(r.status, 403);
  });

  test("the session reads the same REST API as an API key, for the session's team", async () => {
    const viaKey = await t.api('GET', '/api-keys');
    const viaSession = await owner.get('/api-keys');
    assert.equal(viaSession.status, 200);
    assert.deepEqual(viaSession.body, viaKey.body);
  });

  test('state-changing API calls need the CSRF header', async () => {
    const without = await owner.post('/api-keys', { name: 'no csrf' }, { csrf: false });
    assert.equal(without.status, 403);
    assert.match(without.body.message, /CSRF/);
    const wrong = await owner.req(
      'POST',
      '/api-keys',
      { name: 'bad csrf' },
      { csrf: false, headers: { 'x-csrf-token': 'x'.repeat(43) } },
    );
    assert.equal(wrong.status, 403);
    const ok = await owner.post('/api-keys', { name: 'from the dashboard' });
    assert.equal(ok.status, 201);
    assert.match(ok.body.token, /^re_/);
  });

  test('an Authorization header wins over the session cookie (API-key behaviour unchanged)', async () => {
    const r = await owner.req('GET', '/api-keys', undefined, { headers: { authorization: 'Bearer re_wrong' } });
    assert.equal(r.status, 403);
    assert.equal(r.body.name, 'invalid_api_key');
  });

  test('dashboard requests are not written to the API request log', async () => {
    await owner.get('/domains?limit=1');
    await new Promise((r) => setTimeout(r, 1500));
    const logs = await t.api('GET', '/logs?limit=100');
    assert.equal(logs.status, 200);
    assert.ok(!logs.body.data.some((l: any) => l.endpoint === '/domains' && l.api_key_id === null && l.status === 200));
  });

  test('a member can look but not change; admins invite; members see no invites', async () => {
    const inv = await owner.post('/dashboard-api/team/invites', { role: 'member' });
    assert.equal(inv.status, 200, JSON.stringify(inv.body));
    const token = inv.body.url.split('/').pop();
    const info = await new DashboardClient(t.url).get(`/dashboard-api/invites/${token}`);
    assert.equal(info.body.role, 'member');
    const member = new DashboardClient(t.url);
    const signup = await inviteSignupConfirmed(t, member, token, {
      email: 'mia@example.com',
      password: 'member-password-1',
    });
    assert.equal(signup.status, 200, JSON.stringify(signup.body));
    assert.equal((await member.get('/api-keys')).status, 200);
    const create = await member.post('/api-keys', { name: 'nope' });
    assert.equal(create.status, 403);
    assert.match(create.body.message, /Members can view/);
    assert.equal((await member.post('/dashboard-api/team/invites', { role: 'member' })).status, 403);
    const team = await member.get('/dashboard-api/team');
    assert.equal(team.body.members.length, 2);
    assert.deepEqual(team.body.invites, []);
    // The invite link works once.
    const again = await new DashboardClient(t.url).post(`/dashboard-api/invites/${token}/signup`, {
      email: 'other@example.com',
      password: 'member-password-2',
    });
    assert.equal(again.status, 404);
  });

  test("one team's session never sees another team's data", async () => {
    const other = new DashboardClient(t.url);
    await other.post('/dashboard-api/login', { email: 'mia@example.com', password: 'member-password-1' });
    const created = await other.post('/dashboard-api/teams', { name: 'Second team' });
    assert.equal(created.status, 200);
    const keysA = await owner.get('/api-keys');
    const keysB = await other.get('/api-keys');
    assert.ok(keysA.body.data.length > 0);
    assert.equal(keysB.body.data.length, 0);
    const foreignKey = keysA.body.data[0].id;
    assert.equal((await other.req('DELETE', `/api-keys/${foreignKey}`)).status, 404);
    // Switching to a team one is not a member of is refused.
    const st = await owner.get('/dashboard-api/state');
    const otherState = await other.get('/dashboard-api/state');
    const teamB = otherState.body.team.id;
    assert.notEqual(teamB, st.body.team.id);
    assert.equal((await owner.post('/dashboard-api/teams/switch', { team_id: teamB })).status, 404);
    // Switching back to a team one belongs to works.
    assert.equal((await other.post('/dashboard-api/teams/switch', { team_id: st.body.team.id })).status, 200);
    assert.equal((await other.get('/api-keys')).body.data.length, keysA.body.data.length);
  });

  test('a member removed from the team loses access at once', async () => {
    const m = new DashboardClient(t.url);
    await m.post('/dashboard-api/login', { email: 'mia@example.com', password: 'member-password-1' });
    const team = await owner.get('/dashboard-api/team');
    const mia = team.body.members.find((x: any) => x.email === 'mia@example.com');
    assert.equal((await owner.req('DELETE', `/dashboard-api/team/members/${mia.user_id}`)).status, 200);
    assert.equal((await m.get('/api-keys')).status, 401);
  });

  test('the last owner cannot be demoted', async () => {
    const st = await owner.get('/dashboard-api/state');
    const r = await owner.req('PATCH', `/dashboard-api/team/members/${st.body.user.id}`, { role: 'member' });
    assert.equal(r.status, 422);
  });

  test('wrong passwords are throttled per account and address', async () => {
    const c = new DashboardClient(t.url);
    for (let i = 0; i < 5; i++) {
      const r = await c.post('/dashboard-api/login', { email: OWNER.email, password: `wrong-password-${i}` });
      assert.equal(r.status, 401);
    }
    const locked = await c.post('/dashboard-api/login', { email: OWNER.email, password: OWNER.password });
    assert.equal(locked.status, 429);
    assert.match(locked.body.message, /Too many failed attempts/);
    // Another account from the same address is not locked.
    const fresh = await c.post('/dashboard-api/login', { email: 'nobody@example.com', password: 'whatever-pass' });
    assert.equal(fresh.status, 401);
    await t.db.pool.query(`DELETE FROM login_throttle`);
  });

  test('logout ends this session; logout everywhere ends all of them', async () => {
    const a = new DashboardClient(t.url);
    const b = new DashboardClient(t.url);
    for (const c of [a, b])
      assert.equal(
        (await c.post('/dashboard-api/login', { email: OWNER.email, password: OWNER.password })).status,
        200,
      );
    assert.equal((await a.post('/dashboard-api/logout', {}, { csrf: false })).status, 403); // needs CSRF too
    assert.equal((await a.post('/dashboard-api/logout')).status, 200);
    assert.equal((await a.get('/domains')).status, 401);
    assert.equal((await b.get('/domains')).status, 200);
    assert.equal((await b.post('/dashboard-api/logout-all')).status, 200);
    assert.equal((await b.get('/domains')).status, 401);
    assert.equal((await owner.get('/domains')).status, 401);
  });
});

describe('dashboard sessions behind https', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ publicUrl: 'https://mail.example.com' });
  });
  after(async () => {
    await t.close();
  });

  test('cookies are Secure when MAILROOM_PUBLIC_URL is https', async () => {
    const c = new DashboardClient(t.url);
    const r = await c.post('/dashboard-api/setup', OWNER);
    assert.equal(r.status, 200);
    for (const cookie of r.setCookies) assert.match(cookie, /; Secure/);
  });
});

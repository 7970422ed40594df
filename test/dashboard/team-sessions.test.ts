// Issue 29, team security step 2: members' sessions listed (never the token) and revocable, one or
// all, by owners/admins and by the member; revocation takes effect on the next request in another
// process too; nothing reaches another team's sessions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient, inviteSignupConfirmed } from '../helpers/dashboard-client.js';
import { storeCheapPassword } from '../helpers/cheap-password.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1', name: 'Olive Owner' };
const MO = { email: 'mo@example.com', password: 'pass-word-123' };

describe('team members sessions', () => {
  let t: TestApp;
  let t2: TestApp; // a second process on the same database
  let owner: DashboardClient;
  let admin: DashboardClient;
  let mo1: DashboardClient;
  let mo2: DashboardClient;
  let moId: string;
  let ownerId: string;
  const elsewhere = (c: DashboardClient) => {
    const other = new DashboardClient(t2.url);
    for (const [k, v] of c.jar) other.jar.set(k, v);
    other.csrf = c.csrf;
    return other;
  };

  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    t2 = await startTestApp({ deliveryMode: 'capture' }, { db: t.db });
    owner = new DashboardClient(t.url);
    assert.equal((await owner.post('/dashboard-api/setup', OWNER)).status, 200);
    for (const [role, email] of [
      ['admin', 'ada@example.com'],
      ['member', MO.email],
    ]) {
      const inv = await owner.post('/dashboard-api/team/invites', { role, email });
      const c = new DashboardClient(t.url);
      const r = await inviteSignupConfirmed(t, c, inv.body.url.split('/').pop(), { email, password: MO.password });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      if (role === 'admin') admin = c;
      else mo1 = c;
    }
    for (const u of [OWNER, MO]) await storeCheapPassword(t.db.pool, u.email, u.password); // fast sign-ins
    mo2 = new DashboardClient(t.url);
    const login = await mo2.req('POST', '/dashboard-api/login', MO, { headers: { 'user-agent': 'SecondBrowser/2.0' } });
    assert.equal(login.status, 200);
    const members = (await owner.get('/dashboard-api/team')).body.members as { user_id: string; email: string }[];
    moId = members.find((m) => m.email === MO.email)!.user_id;
    ownerId = members.find((m) => m.email === OWNER.email)!.user_id;
  });
  after(async () => {
    await t2?.close();
    await t.close();
  });

  test('an admin lists a member’s sessions: created, last seen, IP, user agent, never the token', async () => {
    const r = await admin.get(`/dashboard-api/team/members/${moId}/sessions`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.data.length, 2);
    for (const s of r.body.data) {
      assert.deepEqual(Object.keys(s).sort(), ['created_at', 'current', 'id', 'ip', 'last_seen_at', 'user_agent']);
      assert.equal(s.ip, '127.0.0.1');
      assert.equal(s.current, false);
    }
    assert.ok(r.body.data.some((s: { user_agent: string }) => s.user_agent === 'SecondBrowser/2.0'));
    const text = JSON.stringify(r.body);
    for (const token of [mo1.jar.get('mailroom_session')!, mo2.jar.get('mailroom_session')!])
      assert.ok(!text.includes(token));
  });

  test('a member lists their own (the current one marked) but not another member’s', async () => {
    const own = await mo1.get(`/dashboard-api/team/members/${moId}/sessions`);
    assert.equal(own.status, 200);
    assert.equal(own.body.data.filter((s: { current: boolean }) => s.current).length, 1);
    assert.equal((await mo1.get(`/dashboard-api/team/members/${ownerId}/sessions`)).status, 403);
    assert.equal((await mo1.req('DELETE', `/dashboard-api/team/members/${ownerId}/sessions`)).status, 403);
  });

  test('admins revoke one session; its next request fails in another process too', async () => {
    const mo2Elsewhere = elsewhere(mo2);
    assert.equal((await mo2Elsewhere.get('/domains')).status, 200);
    const list = (await admin.get(`/dashboard-api/team/members/${moId}/sessions`)).body.data;
    const target = list.find((s: { user_agent: string }) => s.user_agent === 'SecondBrowser/2.0');
    const r = await admin.req('DELETE', `/dashboard-api/team/members/${moId}/sessions/${target.id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await mo2Elsewhere.get('/domains')).status, 401);
    assert.equal((await mo2.get('/dashboard-api/team')).status, 401);
    assert.equal((await mo1.get('/dashboard-api/team')).status, 200); // the other one lives
    const again = await admin.req('DELETE', `/dashboard-api/team/members/${moId}/sessions/${target.id}`);
    assert.equal(again.status, 404);
    const { rows } = await t.db.pool.query(
      `SELECT target_id, summary FROM audit_log WHERE action = 'member.sessions_revoked' ORDER BY seq`,
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0].target_id, moId);
    assert.deepEqual(rows[0].summary.after, { sessions_ended: 1, session_id: target.id });
  });

  test('admins cannot end owners’ sessions; a member ends all of their own', async () => {
    assert.equal((await admin.req('DELETE', `/dashboard-api/team/members/${ownerId}/sessions`)).status, 403);
    assert.equal((await owner.get('/dashboard-api/team')).status, 200);
    const mo3 = new DashboardClient(t.url);
    assert.equal((await mo3.post('/dashboard-api/login', MO)).status, 200);
    const r = await mo1.req('DELETE', `/dashboard-api/team/members/${moId}/sessions`);
    assert.equal(r.status, 200);
    assert.equal(r.body.sessions_ended, 2);
    assert.equal((await mo3.get('/domains')).status, 401);
    assert.equal((await mo1.get('/dashboard-api/team')).status, 401);
  });

  test('another team cannot see or end this team’s sessions', async () => {
    const other = new DashboardClient(t.url);
    assert.equal((await other.post('/dashboard-api/login', OWNER)).status, 200);
    assert.equal((await other.post('/dashboard-api/teams', { name: 'Other' })).status, 200); // now in "Other"
    // mo is no member there: 404; the owner is, but their team-A sessions are not this team's
    assert.equal((await other.get(`/dashboard-api/team/members/${moId}/sessions`)).status, 404);
    const inA = (await owner.get(`/dashboard-api/team/members/${ownerId}/sessions`)).body.data;
    const fromB = await other.get(`/dashboard-api/team/members/${ownerId}/sessions`);
    assert.equal(fromB.status, 200);
    assert.deepEqual(
      fromB.body.data
        .map((s: { id: string }) => s.id)
        .filter((id: string) => inA.some((a: { id: string }) => a.id === id)),
      [],
    );
    const aSession = inA.find((s: { current: boolean }) => s.current).id;
    assert.equal(
      (await other.req('DELETE', `/dashboard-api/team/members/${ownerId}/sessions/${aSession}`)).status,
      404,
    );
    assert.equal((await owner.get('/dashboard-api/team')).status, 200);
    assert.equal((await other.get(`/dashboard-api/team/members/not-a-uuid/sessions`)).status, 404);
  });
});

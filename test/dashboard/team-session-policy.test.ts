// Issue 29, team security step 1: a per-team session lifetime and idle timeout, set through the
// dashboard API, bounded, audited, and enforced on every dashboard request (401 and the row deleted).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient, inviteSignupConfirmed } from '../helpers/dashboard-client.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1', name: 'Olive Owner' };

describe('team session policy', () => {
  let t: TestApp;
  let owner: DashboardClient;
  let admin: DashboardClient;
  let member: DashboardClient;
  const sessionCount = async (email: string) =>
    Number(
      (
        await t.db.pool.query(
          'SELECT count(*) AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1',
          [email],
        )
      ).rows[0].n,
    );
  const age = (email: string, column: 'created_at' | 'last_seen_at', interval: string) =>
    t.db.pool.query(
      `UPDATE sessions SET ${column} = ${column} - $2::interval WHERE user_id = (SELECT id FROM users WHERE email = $1)`,
      [email, interval],
    );

  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
    assert.equal((await owner.post('/dashboard-api/setup', OWNER)).status, 200);
    for (const [role, email] of [
      ['admin', 'ada@example.com'],
      ['member', 'mo@example.com'],
    ]) {
      const inv = await owner.post('/dashboard-api/team/invites', { role, email });
      const c = new DashboardClient(t.url);
      const r = await inviteSignupConfirmed(t, c, inv.body.url.split('/').pop(), { email, password: 'pass-word-123' });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      if (role === 'admin') admin = c;
      else member = c;
    }
  });
  after(async () => {
    await t.close();
  });

  test('the defaults are the behaviour of before: no absolute lifetime, 14 days idle', async () => {
    const r = await member.get('/dashboard-api/team');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.security, {
      require_mfa: false,
      session_lifetime_hours: null,
      session_idle_minutes: 20160,
      sign_in_methods: ['password', 'google', 'github'],
    });
    // A session 30 days old that was used a minute ago is still good.
    await age('mo@example.com', 'created_at', '30 days');
    assert.equal((await member.get('/domains')).status, 200);
  });

  test('values out of bounds are refused 422 naming the field, and nothing is written', async () => {
    for (const [field, value] of [
      ['session_lifetime_hours', 0],
      ['session_lifetime_hours', 8761],
      ['session_lifetime_hours', 1.5],
      ['session_lifetime_hours', '24'],
      ['session_idle_minutes', 4],
      ['session_idle_minutes', 20161],
      ['session_idle_minutes', null],
    ] as const) {
      const r = await owner.req('PATCH', '/dashboard-api/team', { session_idle_minutes: 60, [field]: value });
      assert.equal(r.status, 422, `${field}=${value}`);
      assert.match(r.body.message, new RegExp(field));
    }
    assert.equal((await owner.get('/dashboard-api/team')).body.security.session_idle_minutes, 20160);
  });

  test('members may not change it; admins may (audited with before and after)', async () => {
    assert.equal((await member.req('PATCH', '/dashboard-api/team', { session_idle_minutes: 30 })).status, 403);
    // require_mfa stays owners-only
    assert.equal((await admin.req('PATCH', '/dashboard-api/team', { require_mfa: false })).status, 403);
    const r = await admin.req('PATCH', '/dashboard-api/team', { session_lifetime_hours: 12, session_idle_minutes: 30 });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, {
      require_mfa: false,
      session_lifetime_hours: 12,
      session_idle_minutes: 30,
      sign_in_methods: ['password', 'google', 'github'],
    });
    const { rows } = await t.db.pool.query(
      `SELECT actor_display, summary FROM audit_log WHERE action = 'team.security_changed' ORDER BY seq DESC LIMIT 1`,
    );
    assert.equal(rows[0].actor_display, 'ada@example.com');
    assert.deepEqual(rows[0].summary.before, { session_lifetime_hours: null, session_idle_minutes: 20160 });
    assert.deepEqual(rows[0].summary.after, { session_lifetime_hours: 12, session_idle_minutes: 30 });
  });

  test('a session older than the lifetime is refused 401 and deleted (existing sessions included)', async () => {
    // The member's session was aged 30 days in the first test: the 12-hour lifetime now ends it.
    assert.equal(await sessionCount('mo@example.com'), 1);
    const api = await member.get('/domains');
    assert.equal(api.status, 401);
    assert.equal(api.body.name, 'missing_api_key');
    assert.equal(await sessionCount('mo@example.com'), 0);
    assert.equal((await member.get('/dashboard-api/team')).status, 401);
  });

  test('a session idle longer than the timeout is refused 401 and deleted; a used one lives on', async () => {
    assert.equal((await admin.get('/dashboard-api/team')).status, 200);
    await age('ada@example.com', 'last_seen_at', '29 minutes');
    assert.equal((await admin.get('/dashboard-api/team')).status, 200); // within 30 minutes: touched again
    assert.equal((await admin.get('/domains')).status, 200);
    await age('ada@example.com', 'last_seen_at', '31 minutes');
    const r = await admin.get('/dashboard-api/team');
    assert.equal(r.status, 401);
    assert.equal(await sessionCount('ada@example.com'), 0);
    // the owner, active, is unaffected; and lifting the lifetime (null) is allowed
    const lift = await owner.req('PATCH', '/dashboard-api/team', { session_lifetime_hours: null });
    assert.equal(lift.status, 200);
    assert.equal(lift.body.session_lifetime_hours, null);
    assert.equal(lift.body.session_idle_minutes, 30);
  });
});

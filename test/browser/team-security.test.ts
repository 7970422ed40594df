// The Team page's security settings and members' sessions in Chromium, at 1440 px and on a 390 px
// phone: the owner changes the session lifetime, idle timeout and allowed sign-in methods (what
// the API then answers, an out-of-range value refused in the API's words), lists a member's
// sessions and ends one: that session's next request is refused while the member's others go on.
// Each change is in the audit log with the owner as its actor.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { DashboardClient, inviteSignupConfirmed } from '../helpers/dashboard-client.js';
import { assertFits, browserTest, captureSuite, OWNER, ownerPage, ownerPhone, PHONE } from '../helpers/browser.js';
import { storeCheapPassword } from '../helpers/cheap-password.js';

const MO = { email: 'mo@example.com', password: 'mo-password-123', name: 'Mo Member' };

describe('team security settings and sessions in a browser', { timeout: 180_000 }, () => {
  let owner: DashboardClient;
  const mo: Record<string, DashboardClient> = {};
  const s = captureSuite('mailroom-team-security', { config: { dashboardFrom: 'Mailroom <no-reply@example.com>' } });

  /** After the owner exists: a member Mo signed in from three "browsers" (user agents). */
  const seedMember = async () => {
    await storeCheapPassword(s.t.db.pool, OWNER.email, OWNER.password);
    owner = new DashboardClient(s.t.url);
    assert.equal((await owner.post('/dashboard-api/login', OWNER)).status, 200);
    const inv = await owner.post('/dashboard-api/team/invites', { role: 'member', email: MO.email });
    assert.equal(inv.status, 200, JSON.stringify(inv.body));
    mo.first = new DashboardClient(s.t.url);
    const r = await inviteSignupConfirmed(s.t, mo.first, inv.body.url.split('/').pop(), MO);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    await storeCheapPassword(s.t.db.pool, MO.email, MO.password);
    for (const ua of ['SecondBrowser/2.0', 'ThirdBrowser/3.0']) {
      const c = new DashboardClient(s.t.url);
      const login = await c.req('POST', '/dashboard-api/login', MO, { headers: { 'user-agent': ua } });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      mo[ua] = c;
    }
  };

  const audit = async (action: string) => {
    const r = await s.t.api('GET', `/audit-log?action=${action}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data as { actor: { kind: string; display: string }; target: { id: string }; summary: any }[];
  };

  const run = (
    name: string,
    width: number,
    open: () => Promise<Page>,
    policy: { life: string; idle: number },
    endUa: string,
  ) =>
    browserTest(`${name}: security settings saved and a member's session ended from the Team page`, async () => {
      const page = await open();
      page.on('dialog', (d) => void d.accept());
      await page.goto(`${s.t.url}/dashboard/team`);
      const security = page.getByRole('region', { name: 'Security' });
      await security.waitFor();

      // An idle timeout under the minimum: the API's refusal, nothing changed.
      await security.getByLabel('Idle timeout (minutes)').fill('1');
      await security.getByRole('button', { name: 'Save security settings' }).click();
      const refusal = security.getByRole('alert');
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? '', /session idle minutes/i);

      await security.getByLabel('Session lifetime (hours)').fill(policy.life);
      await security.getByLabel('Idle timeout (minutes)').fill(String(policy.idle));
      await security.getByLabel('GitHub').setChecked(false);
      await security.getByRole('button', { name: 'Save security settings' }).click();
      await security.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const team = await owner.get('/dashboard-api/team');
      assert.deepEqual(team.body.security, {
        require_mfa: false,
        session_lifetime_hours: policy.life === '' ? null : Number(policy.life),
        session_idle_minutes: policy.idle,
        sign_in_methods: ['password', 'google'],
      });
      // One entry per setting changed (the policy; the sign-in methods only the first time), newest first.
      const entries = await audit('team.security_changed');
      const timing = entries.find((e) => 'session_idle_minutes' in e.summary.after)!;
      assert.equal(timing.summary.after.session_idle_minutes, policy.idle);
      assert.equal(timing.actor.display, OWNER.email);
      const methods = entries.filter((e) => 'sign_in_methods' in e.summary.after);
      assert.equal(methods.length, 1, 'saving the same methods again records nothing');
      assert.deepEqual(methods[0].summary.after, { sign_in_methods: ['password', 'google'] });

      // Mo's sessions: listed with their user agents; ending one refuses that one only.
      const sessions = page.getByRole('region', { name: 'Sessions' });
      await sessions.getByLabel('Member').selectOption({ label: MO.email });
      const table = sessions.getByRole('table', { name: `Sessions of ${MO.email}` });
      const row = table.getByRole('row').filter({ hasText: endUa });
      await row.waitFor();
      await s.shots.shot(`team-security-${width}`, page);
      const id = await row.getAttribute('data-id');
      assert.equal((await mo[endUa].get('/dashboard-api/team')).status, 200, 'the session works before');
      await row.getByRole('button', { name: /^End session / }).click();
      await row.waitFor({ state: 'detached' });
      assert.equal((await mo[endUa].get('/dashboard-api/team')).status, 401, 'the ended session is refused');
      assert.equal((await mo[endUa].get('/emails')).status, 401);
      assert.equal((await mo.first.get('/dashboard-api/team')).status, 200, "Mo's other session goes on");
      const revoked = (await audit('member.sessions_revoked'))[0];
      assert.equal(revoked.actor.display, OWNER.email);
      assert.equal(revoked.summary.after.session_id, id);

      await assertFits(page, width);
      assert.deepEqual(s.errors, []);
    });

  run(
    'desktop',
    1440,
    async () => {
      const page = await ownerPage(s.browser, s.t.url, s.errors, { width: 1440, height: 900 });
      await seedMember();
      return page;
    },
    { life: '24', idle: 60 },
    'SecondBrowser/2.0',
  );

  run(
    'phone',
    PHONE.width,
    async () => {
      const page = await ownerPhone(s.browser, s.t.url, s.errors);
      return page;
    },
    { life: '', idle: 90 },
    'ThirdBrowser/3.0',
  );
});

// Issue 30, defect 4, in Chromium on a default install (MAILROOM_DASHBOARD_FROM unset, no sign-in
// provider): the Team page says before inviting what an invitee will need, and the owner makes a
// one-time set-password link bound to the address, hands it over, and the invitee chooses a
// password with it, joins and can sign in with it later. The link works once, expires, and sets
// only that address's password; an address with a proven account gets none.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import {
  browserSkip,
  browserTest,
  desktopPage,
  launchBrowser,
  OWNER,
  PHONE,
  screenshots,
  setUpOwner,
} from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

const NEW = { email: 'nia@example.com', password: 'nia-password-12' };

describe('Inviting on a default install: a set-password link the owner hands over', { timeout: 180_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-team-handover');
  let link = '';

  before(async () => {
    if (browserSkip) return;
    t = await startTestApp({ deliveryMode: 'capture' }); // no dashboardFrom: the server sends no system mail
    browser = await launchBrowser();
    page = await desktopPage(browser, errors, { width: 1440, height: 900 });
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest(
    'the Team page says what an invitee needs here, and makes a set-password link for one address',
    async () => {
      await page.goto(`${t.url}/dashboard/team`);
      await page
        .getByTestId('joining')
        .filter({ hasText: 'This server cannot send email (MAILROOM_DASHBOARD_FROM is not set)' })
        .filter({ hasText: 'One-time set-password link' })
        .waitFor();
      await page.getByLabel('One-time set-password link').check();
      await page.getByTestId('joining').filter({ hasText: 'no email from this server is needed' }).waitFor();
      await page.getByLabel('Their email').fill(NEW.email);
      await page.getByRole('button', { name: 'Create set-password link' }).click();
      link = await page.getByTestId('set-password-link').locator('code').innerText();
      assert.match(link, /\/dashboard\/verify\/[A-Za-z0-9]{40}$/);
      await page.getByText(`Hand this link to ${NEW.email} yourself`).waitFor();
      await page
        .getByTestId('pending-invites')
        .locator('li', { hasText: `Member invite for ${NEW.email}` })
        .waitFor();
      await shots.shot('01-set-password-link', page);
      const phone = await browser.newContext({
        viewport: PHONE,
        isMobile: true,
        hasTouch: true,
        storageState: await page.context().storageState(),
      });
      const p = await phone.newPage();
      await p.goto(`${t.url}/dashboard/team`);
      await p.getByTestId('joining').waitFor();
      assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling');
      await shots.shot('02-team-phone', p);
      await phone.close();
      assert.deepEqual(errors, []);
    },
  );

  browserTest('the invitee sets the password with it, joins, and signs in with it later; it works once', async () => {
    const member = await desktopPage(browser, errors);
    const path = new URL(link).pathname; // the app's public URL is not the test server's port
    await member.goto(t.url + path);
    await member.getByLabel('Choose a password').fill(NEW.password);
    await member.getByRole('button', { name: /^Confirm and join / }).click();
    await member.waitForURL(/\/dashboard\/emails/);
    await member.context().close();

    const again = await desktopPage(browser, errors);
    await again.goto(t.url + path);
    await again.getByText('This confirmation link is not valid any more').waitFor();
    await again.context().close();

    const c = new DashboardClient(t.url);
    const login = await c.post('/dashboard-api/login', { email: NEW.email, password: NEW.password });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const team = await page.evaluate(async () => (await fetch('/dashboard-api/team')).json());
    assert.deepEqual(team.members.map((m: { email: string; role: string }) => `${m.email} ${m.role}`).sort(), [
      `${NEW.email} member`,
      `${OWNER.email} owner`,
    ]);
    assert.deepEqual(team.invites, [], 'the invite is used');
    assert.deepEqual(errors, []);
  });

  browserTest('a link expires, and an address with a proven account gets none', async () => {
    const owner = new DashboardClient(t.url);
    assert.equal((await owner.post('/dashboard-api/login', OWNER)).status, 200);
    const proven = await owner.post('/dashboard-api/team/invites', { handover: true, email: NEW.email });
    assert.equal(proven.status, 422, JSON.stringify(proven.body));
    assert.match(proven.body.message, /already has an account/);
    assert.equal((await owner.post('/dashboard-api/team/invites', { handover: true })).status, 422, 'needs an address');

    const r = await owner.post('/dashboard-api/team/invites', { handover: true, email: 'late@example.com' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const token = String(r.body.set_password_url).split('/').pop()!;
    await t.db.pool.query(`UPDATE email_verifications SET expires_at = now() - interval '1 second'`);
    const late = await new DashboardClient(t.url).post('/dashboard-api/verify', {
      token,
      password: 'late-password-12',
    });
    assert.equal(late.status, 404, JSON.stringify(late.body));
    const { rows } = await t.db.pool.query(
      `SELECT email_verified_at IS NOT NULL AS email_verified, password_hash IS NOT NULL AS has_password FROM users WHERE email = 'late@example.com'`,
    );
    assert.deepEqual(rows, [{ email_verified: false, has_password: false }]);
  });
});

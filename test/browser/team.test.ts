// The Team page in Chromium: an invite accepted in another browser leaves the pending list when
// the owner comes back to the window, and a role change (above all to Owner) asks first: Cancel
// changes nothing on the server, confirming changes the role. Desktop and phone.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { DashboardClient, inviteSignupConfirmed } from '../helpers/dashboard-client.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

const MIA = { email: 'mia@example.com', password: 'mia-password-12', name: 'Mia Member' };

describe('Team roles and invites in a browser', { timeout: 120_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-team');
  const roleOnServer = async () => {
    const team = await page.evaluate(async () => (await fetch('/dashboard-api/team')).json());
    return team.members.find((m: { email: string }) => m.email === MIA.email)?.role;
  };

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startCaptureApp({ dashboardFrom: 'Mailroom <no-reply@example.com>' }); // invite sign-ups confirm by email
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
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

  browserTest('an invite accepted elsewhere is no longer listed as pending once the owner is back', async () => {
    await page.goto(`${t.url}/dashboard/team`);
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const url = await page.locator('.token code').innerText();
    await page.getByTestId('pending-invites').locator('li', { hasText: 'Member invite (pending)' }).waitFor();
    const token = url.split('/').pop()!;
    const res = await inviteSignupConfirmed(t, new DashboardClient(t.url), token, MIA);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await page.evaluate(() => window.dispatchEvent(new Event('focus'))); // the owner switches back to this tab
    await page.locator('table.list tbody tr', { hasText: MIA.email }).waitFor();
    assert.equal(await page.getByTestId('pending-invites').count(), 0, 'no pending invite left');
    await shots.shot('team-joined', page);
  });

  browserTest('promoting to Owner asks first; Cancel leaves the role as it was', async () => {
    await page.getByLabel(`Role of ${MIA.email}`).selectOption('owner');
    const dialog = page.getByTestId('role-confirm');
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /Make Mia Member an Owner\?[\s\S]*is a Member now/);
    assert.match(await dialog.innerText(), /Only another owner can undo this/);
    await shots.shot('team-confirm-owner', page);
    await page.waitForTimeout(300);
    assert.equal(await roleOnServer(), 'member', 'nothing changed before confirming');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.getByLabel(`Role of ${MIA.email}`).inputValue(), 'member');
    assert.equal(await roleOnServer(), 'member');
  });

  browserTest('confirming a role change applies it', async () => {
    await page.getByLabel(`Role of ${MIA.email}`).selectOption('admin');
    await page.getByTestId('role-confirm').getByRole('button', { name: 'Make Admin' }).click();
    await page.waitForFunction(async () => {
      const team = await (await fetch('/dashboard-api/team')).json();
      return team.members.some(
        (m: { email: string; role: string }) => m.email === 'mia@example.com' && m.role === 'admin',
      );
    });
    await page.waitForFunction(
      (label) =>
        (document.querySelector(`select[aria-label="${label}"]`) as HTMLSelectElement | null)?.value === 'admin',
      `Role of ${MIA.email}`,
    );
  });

  browserTest('on a phone the Team page and its confirmation fit the screen', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await page.context().storageState(),
    });
    const p = await phone.newPage();
    await p.goto(`${t.url}/dashboard/team`);
    await p.getByLabel(`Role of ${MIA.email}`).selectOption('owner');
    await p.getByTestId('role-confirm').waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390));
    await shots.shot('phone-team-confirm', p);
    await phone.close();
    assert.deepEqual(errors, [], 'no script errors');
  });
});

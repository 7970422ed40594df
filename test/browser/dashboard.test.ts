// The dashboard in Debian's Chromium (playwright-core, never a downloaded browser): first-run
// setup, a domain and its records, an API key, a webhook, an email sent through the API found on
// the Emails page with its timeline and webhook log, Metrics, TOTP enrolment and sign-in with a
// code, sign-out. Screenshots of each page go to MAILROOM_SCREENSHOT_DIR (default: a temp dir).
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import {
  browserSkip,
  browserTest,
  desktopPage,
  launchBrowser,
  OWNER,
  screenshots,
  setUpOwner,
} from '../helpers/browser.js';
import { totp } from '../../src/dashboard-auth/totp.js';
import { closeAll } from '../helpers/close-all.js';

describe('dashboard in a browser', { timeout: 150_000 }, () => {
  let t: TestApp;
  let hook: Receiver;
  let browser: Browser;
  let page: Page;
  let secret = '';
  let apiKey = '';
  const errors: string[] = [];
  const shots = screenshots('mailroom-dashboard');
  const shot = (name: string, p: Page = page, fullPage = true) => shots.shot(name, p, fullPage);
  const go = (p: string) => page.goto(t.url + p);

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    hook = await startReceiver();
    t = await startTestApp({ deliveryMode: 'capture', allowPrivateNetworks: true });
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
      () => hook?.close(),
    );
    if (!browserSkip) shots.report();
  });

  browserTest('first-run setup creates the owner and signs in', async () => {
    await go('/');
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await shot('01-setup');
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/dashboard/domains');
  });

  browserTest('adding a domain shows the records to publish, each with its status', async () => {
    await page.getByRole('heading', { name: 'Add a domain' }).waitFor();
    await shot('02-domains-empty');
    await page.getByLabel('Domain name').fill('example.com');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: 'DNS records' }).waitFor();
    const rows = page.locator('table.records tbody tr');
    assert.ok((await rows.count()) >= 3);
    assert.match(await rows.first().innerText(), /DKIM/);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.locator('.page-head .badge', { hasText: 'verified' }).waitFor();
    await shot('03-domain-detail');
  });

  browserTest('creating an API key shows its token once', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('Production');
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = (await page.getByTestId('new-token').innerText()).trim();
    assert.match(apiKey, /^re_\w{8}_\w{24}$/);
    await shot('04-api-key-created');
  });

  browserTest('adding a webhook endpoint', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Endpoint URL').fill(hook.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('Signing secret').first().waitFor();
    await page.getByRole('link', { name: hook.url }).waitFor();
  });

  browserTest(
    'an email sent through the API appears on the Emails page with its timeline and in the webhook log',
    async () => {
      const res = await fetch(`${t.url}/emails`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          from: 'Acme <hello@example.com>',
          to: 'alice@dest.test',
          subject: 'Welcome to Acme',
          html: '<h1>Hello Alice</h1><p>Thanks for joining.</p><img src="https://tracker.example/p.gif">',
          tags: [{ name: 'campaign', value: 'welcome' }],
        }),
      });
      assert.equal(res.status, 200);
      await hook.waitFor(1); // email.delivered (the form's default events: delivered, bounced, complained)
      await page.getByRole('link', { name: 'Emails' }).click();
      await page.getByRole('link', { name: 'Welcome to Acme' }).waitFor();
      await page
        .locator('table.list tbody tr', { hasText: 'Welcome to Acme' })
        .locator('.badge', { hasText: 'delivered' })
        .waitFor();
      await shot('05-emails');
      await page.getByRole('link', { name: 'Welcome to Acme' }).click();
      await page.locator('.timeline li', { hasText: 'delivered' }).waitFor();
      assert.match(await page.locator('.timeline').innerText(), /SMTP reply[\s\S]*captured/);
      await shot('06-email-timeline');
      await page.getByRole('tab', { name: 'Preview' }).click();
      await page.getByText('1 remote image blocked').waitFor();
      const frame = page.frameLocator('.preview iframe');
      await frame.getByRole('heading', { name: 'Hello Alice' }).waitFor();
      await shot('07-email-preview', page, false); // a full-page capture resizes the frame, which reloads it
      await page.getByRole('tab', { name: 'Headers' }).click();
      await page.locator('table.headers th', { hasText: 'Subject' }).waitFor();
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByRole('link', { name: hook.url }).click();
      await page
        .getByTestId('webhook-log')
        .locator('tr', { hasText: 'email.delivered' })
        .locator('.badge', { hasText: 'success' })
        .waitFor();
      await shot('08-webhook-log');
    },
  );

  browserTest('the Metrics page shows the numbers', async () => {
    await page.getByRole('link', { name: 'Metrics' }).click();
    const totals = page.getByTestId('metrics-totals');
    await totals.locator('.stat', { hasText: 'Sent' }).locator('.stat-value', { hasText: '1' }).waitFor();
    assert.match(await totals.innerText(), /Delivered\s+1\s+100\.0% delivery rate/);
    await page.locator('.chart canvas').first().waitFor();
    await shot('09-metrics');
  });

  browserTest('enabling TOTP, then signing in with a password and a code', async () => {
    await page.getByRole('link', { name: OWNER.email }).click();
    await page.getByRole('button', { name: 'Set up two-factor authentication' }).click();
    secret = (await page.getByTestId('totp-secret').innerText()).replace(/\s/g, '');
    await shot('10-totp-enrol');
    await page.getByLabel('Code from the app').fill(totp(secret));
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByTestId('recovery-codes').waitFor();
    assert.equal(await page.getByTestId('recovery-codes').locator('li').count(), 10);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.name === 'code'); // the code field is focused
    await shot('11-mfa-prompt');
    await page.getByLabel('Authentication code').fill(totp(secret, Date.now() + 30_000)); // the enrolment spent this step
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByRole('heading', { name: 'Emails' }).waitFor();
  });

  browserTest('the layout holds on a phone and in the dark theme', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: 'dark',
      storageState: await page.context().storageState(),
    });
    const p = await phone.newPage();
    await p.goto(`${t.url}/dashboard/emails`);
    await p.getByRole('link', { name: 'Welcome to Acme' }).waitFor();
    await shot('15-phone-dark-emails', p);
    await p.getByRole('button', { name: 'Menu' }).click();
    await p.getByRole('link', { name: 'Domains' }).click();
    await p.getByRole('link', { name: 'example.com' }).waitFor();
    await shot('16-phone-dark-domains', p);
    await phone.close();
  });

  browserTest('logs, suppressions, mailbox and team pages show their data', async () => {
    await go('/dashboard/logs');
    await page.locator('table.list tbody tr', { hasText: '/emails' }).first().waitFor();
    await page.locator('table.list tbody tr', { hasText: '/emails' }).first().getByRole('link').click();
    await page.getByRole('heading', { name: 'Request body' }).waitFor();
    assert.match(await page.locator('pre.code').first().innerText(), /Welcome to Acme/);
    await shot('12-log-detail');
    await go('/dashboard/suppressions');
    await page.getByRole('heading', { name: 'Nothing suppressed' }).waitFor();
    await go('/dashboard/mailbox');
    await page.locator('.mail-list button', { hasText: 'Welcome to Acme' }).waitFor();
    await page.frameLocator('.mail-view iframe').getByRole('heading', { name: 'Hello Alice' }).waitFor();
    await shot('13-mailbox', page, false);
    await go('/dashboard/team');
    await page.locator('table.list tbody tr', { hasText: OWNER.email }).waitFor();
    await page.getByRole('button', { name: 'Create invite link' }).click();
    assert.match(await page.locator('.token code').innerText(), /\/dashboard\/invite\/[A-Za-z0-9]{32}$/);
    await shot('14-team');
    assert.deepEqual(errors, [], 'no script errors on any page');
  });

  browserTest('signing out ends the session', async () => {
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const r = await page.evaluate(async () => (await fetch('/domains')).status);
    assert.equal(r, 401);
    await shot('17-signed-out');
  });
});

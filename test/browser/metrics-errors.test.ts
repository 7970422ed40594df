// Metrics whose numbers add up (sent and delivered both per recipient, rates at most 100%,
// delayed/failed/suppressed shown, a domain picker), and error states: a failing request on
// Emails, Metrics or Domains shows the error with a Retry, never a false empty state or
// "Loading…" for ever. Server errors are injected in the browser's network (page.route).
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page, Route } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

const failing = (route: Route) =>
  route.fulfill({
    status: 500,
    contentType: 'application/json',
    body: JSON.stringify({ statusCode: 500, message: 'The database is not answering', name: 'internal_server_error' }),
  });

describe('Metrics numbers and error states in a browser', { timeout: 150_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-metrics-errors');

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startCaptureApp();
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    // example.com: one email to four distinct recipients, one to a suppressed address; other.test: one email.
    const other = await t.resend.domains.create({ name: 'other.test' });
    await t.resend.domains.verify(other.data!.id);
    assert.ok(
      (
        await t.resend.emails.send({
          from: 'hello@example.com',
          to: ['one@dest.test', 'two@dest.test'],
          cc: 'three@dest.test',
          bcc: ['four@dest.test', 'ONE@dest.test'],
          subject: 'To four',
          html: '<p>x</p>',
        })
      ).data,
    );
    assert.equal((await t.api('POST', '/suppressions', { body: { email: 'gone@dest.test' } })).status, 201);
    assert.ok(
      (
        await t.resend.emails.send({
          from: 'hello@example.com',
          to: 'gone@dest.test',
          subject: 'Suppressed',
          html: '<p>x</p>',
        })
      ).data,
    );
    assert.ok(
      (
        await t.resend.emails.send({
          from: 'hi@other.test',
          to: 'five@dest.test',
          subject: 'From the other domain',
          html: '<p>x</p>',
        })
      ).data,
    );
    for (let i = 0; i < 100; i++) {
      const { rows } = await t.db.pool.query(
        "SELECT count(*) FILTER (WHERE type = 'email.delivered')::int AS d, count(*) FILTER (WHERE type = 'email.suppressed')::int AS s FROM email_events",
      );
      if (rows[0].d === 5 && rows[0].s === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  const stat = (label: string) =>
    page
      .getByTestId('metrics-totals')
      .locator('.stat', { has: page.locator('.stat-label', { hasText: new RegExp(`^${label}$`) }) });

  browserTest('Metrics count sent and delivered per recipient, and show delayed, failed and suppressed', async () => {
    await page.goto(`${t.url}/dashboard/metrics`);
    await stat('Sent').locator('.stat-value', { hasText: '6' }).waitFor();
    assert.equal(await stat('Delivered').locator('.stat-value').innerText(), '5');
    assert.match(await stat('Delivered').innerText(), /83\.3% delivery rate/);
    assert.equal(await stat('Suppressed').locator('.stat-value').innerText(), '1');
    assert.equal(await stat('Delayed').locator('.stat-value').innerText(), '0');
    assert.equal(await stat('Failed').locator('.stat-value').innerText(), '0');
    await shots.shot('metrics-all-domains', page);
  });

  browserTest('the domain picker narrows Metrics to one domain', async () => {
    await page.getByLabel('Domain').selectOption({ label: 'other.test' });
    await stat('Sent').locator('.stat-value', { hasText: /^1$/ }).waitFor();
    assert.match(await stat('Delivered').innerText(), /^Delivered\s+1\s+100\.0% delivery rate/);
    assert.equal(await stat('Suppressed').locator('.stat-value').innerText(), '0');
    assert.match(page.url(), /domain=/);
    await page.getByLabel('Domain').selectOption({ label: 'example.com' });
    await stat('Sent').locator('.stat-value', { hasText: /^5$/ }).waitFor();
    assert.match(await stat('Delivered').innerText(), /80\.0% delivery rate/);
  });

  browserTest(
    'a server error on Emails shows the error and Retry, not "No emails yet"; Retry loads the list',
    async () => {
      await page.route(/\/emails\?/, failing);
      await page.goto(`${t.url}/dashboard/emails`);
      await page.getByTestId('load-error').waitFor();
      assert.match(await page.getByTestId('load-error').innerText(), /The database is not answering/);
      assert.equal(await page.getByText('No emails yet').count(), 0);
      assert.equal(await page.locator('.loading').count(), 0);
      await shots.shot('emails-error', page);
      await page.unroute(/\/emails\?/, failing);
      await page.getByRole('button', { name: 'Retry' }).click();
      await page.getByRole('link', { name: 'To four' }).waitFor();
      assert.equal(await page.getByTestId('load-error').count(), 0);
    },
  );

  browserTest('a failed request on Metrics shows the error and Retry instead of "Loading…" for ever', async () => {
    await page.route(/\/emails\/metrics/, failing);
    await page.goto(`${t.url}/dashboard/metrics`);
    await page.getByTestId('load-error').waitFor();
    // Nothing stays "Loading…": the page's other sections (the insights list) may still be on their way.
    await page.waitForFunction(() => document.querySelectorAll('.loading').length === 0, undefined, {
      timeout: 15_000,
    });
    await shots.shot('metrics-error', page);
    await page.unroute(/\/emails\/metrics/, failing);
    await page.getByRole('button', { name: 'Retry' }).click();
    await stat('Sent').waitFor();
    assert.equal(await page.getByTestId('load-error').count(), 0);
  });

  browserTest('a failed request on Domains shows the error and Retry instead of "Loading…" for ever', async () => {
    await page.route(
      (u) => u.pathname === '/domains',
      (r) => (r.request().method() === 'GET' ? failing(r) : r.continue()),
    );
    await page.goto(`${t.url}/dashboard/domains`);
    await page.getByTestId('load-error').waitFor();
    assert.equal(await page.locator('.loading').count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Add a domain' }).count(), 0, 'no false empty state');
    await page.unrouteAll();
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByRole('link', { name: 'other.test' }).waitFor();
    assert.equal(await page.getByTestId('load-error').count(), 0);
  });

  browserTest('on a phone the error and the Metrics page fit the screen', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await page.context().storageState(),
    });
    const p = await phone.newPage();
    await p.route(/\/emails\?/, failing);
    await p.goto(`${t.url}/dashboard/emails`);
    await p.getByTestId('load-error').waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390));
    await shots.shot('phone-emails-error', p);
    await p.goto(`${t.url}/dashboard/metrics`);
    await p.getByTestId('metrics-totals').waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390));
    await shots.shot('phone-metrics', p);
    await phone.close();
    assert.deepEqual(errors, [], 'no script errors');
  });
});

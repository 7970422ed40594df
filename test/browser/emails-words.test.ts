// What a user expects from Emails and Logs, in Chromium: search by part of an address or a
// domain with a count, whole rows that open the email (focus on its heading), a test email sent
// from the page, Title Case status filters, a scheduled
// email showing when it goes out (and rescheduled, then cancelled, from its page), a manual
// suppression worded as such in the timeline, and a "4xx" filter on Logs.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe('Emails and Logs say what a user expects', { timeout: 150_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  let scheduledId = '';
  let blockedId = '';
  const errors: string[] = [];
  const shots = screenshots('mailroom-emails-words');
  const rows = () => page.locator('table.list tbody tr');
  const search = async (q: string) => {
    await page.getByRole('searchbox').fill(q);
    await page.getByRole('searchbox').press('Enter');
  };

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startCaptureApp();
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    await t.send({ to: 'noah.smith@gmail.com', subject: 'Your receipt' });
    await t.send({ to: 'olivia@yahoo.test', subject: 'Weekly digest' });
    const when = new Date(Date.now() + 2 * 86400_000);
    scheduledId = (
      await t.resend.emails.send({
        from: 'hello@example.com',
        to: 'sam@dest.test',
        subject: 'Launch day',
        html: '<p>x</p>',
        scheduledAt: when.toISOString(),
      })
    ).data!.id;
    assert.equal((await t.api('POST', '/suppressions', { body: { email: 'blocked@dest.test' } })).status, 201);
    blockedId = await t.send({ to: 'blocked@dest.test', subject: 'To a blocked address' });
    assert.equal((await t.api('GET', '/domains/3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11')).status, 404); // a 4xx in the log
    for (let i = 0; i < 100; i++) {
      const { rows: r } = await t.db.pool.query(
        "SELECT count(*)::int AS n FROM email_events WHERE type = 'email.suppressed'",
      );
      if (r[0].n === 1) break;
      await new Promise((res) => setTimeout(res, 100));
    }
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest('searching part of an address or a domain finds the email and counts the matches', async () => {
    await page.goto(`${t.url}/dashboard/emails`);
    await rows().nth(3).waitFor();
    await search('gmail.com');
    await page.getByTestId('list-count').filter({ hasText: '1 match.' }).waitFor();
    assert.equal(await rows().count(), 1);
    assert.match(await rows().first().innerText(), /noah\.smith@gmail\.com/);
    await search('NOAH');
    await page.getByTestId('list-count').filter({ hasText: '1 match.' }).waitFor();
    await search('.test');
    await page.getByTestId('list-count').filter({ hasText: '3 matches.' }).waitFor();
    await shots.shot('emails-search', page);
  });

  browserTest('status filters read in Title Case, as the badges do', async () => {
    const options = await page.getByLabel('Status').locator('option').allInnerTexts();
    assert.ok(options.includes('Delivery Delayed'), options.join(', '));
    assert.ok(options.includes('Delivered'));
    assert.ok(!options.some((o) => /^[a-z]/.test(o)), 'no lower-case option');
  });

  browserTest('a click anywhere on a row opens the email, and focus moves to its heading', async () => {
    await page.getByRole('button', { name: 'Clear' }).click();
    const row = rows().filter({ hasText: 'olivia@yahoo.test' });
    await row.waitFor();
    await row.locator('td').first().click();
    await page.getByRole('heading', { name: 'Weekly digest' }).waitFor();
    assert.match(page.url(), /\/dashboard\/emails\/[0-9a-f-]{36}$/);
    // Focus follows the navigation to the new page's heading.
    await page.waitForFunction(
      () => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'Weekly digest',
    );
  });

  browserTest('a scheduled email shows when it goes out, and can be rescheduled, then cancelled', async () => {
    await page.goto(`${t.url}/dashboard/emails`);
    const row = rows().filter({ hasText: 'sam@dest.test' });
    await row.waitFor();
    assert.match(await row.innerText(), /Scheduled[\s\S]*for /i);
    assert.doesNotMatch(await row.innerText(), /just now/);
    await page.goto(`${t.url}/dashboard/emails/${scheduledId}`);
    const card = page.getByTestId('scheduled');
    await card.waitFor();
    const later = new Date(Date.now() + 5 * 86400_000);
    later.setSeconds(0, 0);
    const local = new Date(later.getTime() - later.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await card.getByLabel('New time').fill(local);
    await card.getByRole('button', { name: 'Reschedule' }).click();
    await page.waitForFunction(
      async ([id, iso]) =>
        (await (await fetch(`/emails/${id}`)).json()).scheduled_at?.slice(0, 16) === iso.slice(0, 16),
      [scheduledId, later.toISOString()] as const,
    );
    await shots.shot('email-scheduled', page);
    page.once('dialog', (d) => {
      void d.accept();
    });
    await card.getByRole('button', { name: 'Cancel sending' }).click();
    await page.locator('.page-head .badge', { hasText: /canceled/i }).waitFor();
    assert.equal(await page.getByTestId('scheduled').count(), 0);
  });

  browserTest(
    'a manually suppressed recipient is worded as such in the timeline, without raw field names',
    async () => {
      await page.goto(`${t.url}/dashboard/emails/${blockedId}`);
      const item = page.locator('.timeline li', { hasText: /suppressed/i });
      await item.waitFor();
      const text = await item.innerText();
      assert.match(text, /Suppressed\s+on your suppression list \(added by hand\)/);
      assert.doesNotMatch(text, /previous_bounce|origin/);
      await shots.shot('email-suppressed-manual', page);
    },
  );

  browserTest('a test email is sent from the Emails page and shows in the list', async () => {
    await page.goto(`${t.url}/dashboard/emails`);
    const card = page.getByTestId('send-test');
    await card.locator('summary').click();
    await card.getByLabel('To').fill('tester@dest.test');
    await card.getByRole('button', { name: 'Send' }).click();
    await card.locator('.alert.ok', { hasText: 'Sent.' }).waitFor();
    await rows().filter({ hasText: 'tester@dest.test' }).filter({ hasText: 'Test email from Mailroom' }).waitFor();
    await shots.shot('emails-send-test', page);
  });

  browserTest('the Logs status filter takes a class such as 4xx', async () => {
    await page.goto(`${t.url}/dashboard/logs`);
    await rows().first().waitFor();
    await page.getByLabel('HTTP status').fill('4xx');
    await page.getByLabel('HTTP status').press('Enter');
    await page.waitForFunction(() => location.search.includes('status=4xx'));
    await page.waitForFunction(() => {
      const badges = [...document.querySelectorAll('table.list tbody tr td:first-child .badge')].map((b) =>
        Number(b.textContent),
      );
      return badges.length > 0 && badges.every((n) => n >= 400 && n < 500);
    });
    await shots.shot('logs-4xx', page);
    assert.deepEqual(errors, [], 'no script errors');
  });

  // Last: it adds 55 emails, which would push the rows the tests above look for off the first page.
  browserTest("with more matches than one page, the count is the server's total, not the rows loaded", async () => {
    const batch = await t.resend.batch.send(
      Array.from({ length: 55 }, (_, i) => ({
        from: 'hello@example.com',
        to: `reader${i}@bulk.test`,
        subject: `Bulk ${i}`,
        html: '<p>x</p>',
      })),
    );
    assert.equal(batch.data?.data.length, 55, JSON.stringify(batch.error));
    await page.goto(`${t.url}/dashboard/emails`);
    await rows().first().waitFor();
    await search('bulk.test');
    await page
      .getByTestId('list-count')
      .filter({ hasText: '55 matches; 50 shown, more load as you scroll.' })
      .waitFor();
    assert.equal(await rows().count(), 50);
    await shots.shot('emails-search-count', page);
  });
});

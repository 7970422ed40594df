// Lists that used to stop silently (Suppressions at 100, the webhook delivery log at 50, the
// Mailbox at 100) page by cursor in Chromium: more rows on "Load more" or on scroll, a count of
// the rows shown, and a visible note when a filter is on. At desktop and phone widths.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

const EMAILS = 55;
const MANUAL = 60;
const BOUNCED = 3;

async function until<T>(fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('long lists page by cursor in a browser', { timeout: 170_000 }, () => {
  let t: CaptureApp;
  let hook: Receiver;
  let browser: Browser;
  let page: Page;
  let webhookId = '';
  const errors: string[] = [];
  const shots = screenshots('mailroom-lists');

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    hook = await startReceiver();
    t = await startCaptureApp();
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();

    const w = await t.api('POST', '/webhooks', {
      body: { endpoint: hook.url, events: ['email.sent', 'email.delivered'] },
    });
    assert.equal(w.status, 201, JSON.stringify(w.body));
    webhookId = w.body.id;
    const batch = Array.from({ length: EMAILS }, (_, i) => ({
      from: 'hello@example.com',
      to: `reader${i}@dest.test`,
      subject: `Issue ${i}`,
      html: `<p>Issue ${i}</p>`,
    }));
    assert.equal((await t.api('POST', '/emails/batch', { body: batch })).status, 200);
    const emails = Array.from({ length: MANUAL }, (_, i) => `blocked${i}@dest.test`);
    assert.equal((await t.api('POST', '/suppressions/batch/add', { body: { emails } })).status, 201);
    const {
      rows: [team],
    } = await t.db.pool.query('SELECT team_id FROM emails LIMIT 1');
    for (let i = 0; i < BOUNCED; i++) {
      await t.db.pool.query("INSERT INTO suppressions (id, team_id, email, origin) VALUES ($1, $2, $3, 'bounce')", [
        randomUUID(),
        team.team_id,
        `bounced${i}@dest.test`,
      ]);
    }
    // email.sent and email.delivered for each email: more than one page of the log.
    await until(async () => {
      const n = (
        await t.db.pool.query('SELECT count(*)::int AS n FROM webhook_messages WHERE webhook_id = $1', [webhookId])
      ).rows[0].n;
      return n >= 2 * EMAILS ? true : undefined;
    });
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
      () => hook?.close(),
    );
    shots.report();
  });

  browserTest('Suppressions shows 50, then every row after "Load more", with a count', async () => {
    await page.goto(`${t.url}/dashboard/suppressions`);
    const rows = page.getByTestId('suppressions').locator('tbody tr');
    await rows.nth(49).waitFor();
    assert.equal(await rows.count(), 50);
    // The button (for keyboards), clicked without scrolling: scrolling alone would load too.
    await page.getByRole('button', { name: 'Load more' }).dispatchEvent('click');
    await rows.nth(MANUAL + BOUNCED - 1).waitFor();
    assert.equal(await rows.count(), MANUAL + BOUNCED);
    await page.getByRole('button', { name: 'Load more' }).waitFor({ state: 'detached' });
    assert.match(await page.getByTestId('list-count').innerText(), new RegExp(`^${MANUAL + BOUNCED} shown\\.$`));
    await shots.shot('suppressions-all', page);
  });

  browserTest('Suppressions filtered by reason say so, and "Show all" brings the rest back', async () => {
    await page.getByLabel('Reason').selectOption('bounce');
    await page.getByTestId('filtered').waitFor();
    const rows = page.getByTestId('suppressions').locator('tbody tr');
    await page.waitForFunction(
      (n) => document.querySelectorAll('[data-testid=suppressions] tbody tr').length === n,
      BOUNCED,
    );
    assert.match(await rows.first().innerText(), /bounced\d@dest\.test[\s\S]*Hard bounce/i);
    assert.match(await page.getByTestId('list-count').innerText(), /\(filtered\)/);
    await shots.shot('suppressions-filtered', page);
    await page.getByRole('button', { name: 'Show all' }).click();
    await rows.nth(49).waitFor();
    assert.equal(await page.getByTestId('filtered').count(), 0);
  });

  browserTest('the webhook delivery log pages past 50 messages on scroll', async () => {
    // The endpoint itself answers after its log (as it did on a loaded CI box): the table, and the
    // scroll sentinel under it, mount only then, and scrolling must still load the next page.
    let held = 0;
    await page.route(`${t.url}/webhooks/${webhookId}`, async (route) => {
      held++;
      await new Promise((r) => setTimeout(r, 800));
      await route.continue();
    });
    await page.goto(`${t.url}/dashboard/webhooks/${webhookId}`);
    const rows = page.getByTestId('webhook-log').locator('tbody tr');
    await rows.nth(49).waitFor();
    await page.unroute(`${t.url}/webhooks/${webhookId}`);
    assert.ok(held >= 1, 'the endpoint request was held back');
    assert.equal(await rows.count(), 50);
    // Scrolling to the bottom brings the sentinel below the table into view: the next page loads.
    for (let i = 0; i < 20 && (await rows.count()) < 2 * EMAILS; i++) {
      await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await page.waitForTimeout(250);
    }
    assert.equal(await rows.count(), 2 * EMAILS);
    const ids = await rows.locator('td.mono').allInnerTexts();
    assert.equal(ids.filter((x) => x === 'email.sent').length, EMAILS, 'each message once');
    await shots.shot('webhook-log-paged', page);
  });

  browserTest('the webhook delivery log filters by event type and says so', async () => {
    await page.goto(`${t.url}/dashboard/webhooks/${webhookId}`);
    const rows = page.getByTestId('webhook-log').locator('tbody tr');
    await rows.nth(49).waitFor();
    await page.getByLabel('Event').selectOption('email.delivered');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid=webhook-log] tbody td.mono')].every(
        (td) => td.textContent === 'email.delivered',
      ),
    );
    assert.match(await page.getByTestId('list-count').innerText(), /^\d+ match(es)?/);
    await page.getByLabel('Status').selectOption('failed');
    await page.getByText('No delivery matches these filters.').waitFor();
    await shots.shot('webhook-log-filtered', page);
  });

  browserTest('the Mailbox lists more than one page of messages', async () => {
    await page.goto(`${t.url}/dashboard/mailbox`);
    const items = page.locator('.mail-list li button[aria-current]');
    await items.nth(49).waitFor();
    assert.equal(await items.count(), 50);
    await page.locator('.mail-list').getByRole('button', { name: 'Load more' }).waitFor();
    await page.locator('.mail-list').evaluate((el) => {
      el.scrollTop = el.scrollHeight;
    }); // the list scrolls in its own box
    await items.nth(EMAILS - 1).waitFor();
    assert.equal(await items.count(), EMAILS);
    const subjects = await items.locator('.strong').allInnerTexts();
    assert.equal(new Set(subjects).size, EMAILS, 'each message once');
    await items.nth(EMAILS - 1).click();
    await page.locator('.mail-view h2', { hasText: subjects[EMAILS - 1] }).waitFor();
  });

  browserTest('on a phone the paged Suppressions list fits the screen and still loads more', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await page.context().storageState(),
    });
    const p = await phone.newPage();
    await p.goto(`${t.url}/dashboard/suppressions`);
    const rows = p.getByTestId('suppressions').locator('tbody tr');
    await rows.nth(49).waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390));
    for (let i = 0; i < 20 && (await rows.count()) < MANUAL + BOUNCED; i++) {
      await p.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await p.waitForTimeout(250);
    }
    assert.equal(await rows.count(), MANUAL + BOUNCED);
    await shots.shot('phone-suppressions', p);
    await phone.close();
    assert.deepEqual(errors, [], 'no script errors');
  });
});

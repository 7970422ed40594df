// The Broadcasts pages in Chromium: the owner creates a broadcast for a segment, sends a test to
// one address, sends it, and watches the progress reach every contact; the API agrees.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe('Broadcasts pages in a browser', { timeout: 120_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-broadcasts');

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startTestApp({ deliveryMode: 'capture' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
    const seg = (await t.resend.segments.create({ name: 'Readers' })).data!.id;
    for (const email of ['ann@dest.test', 'bob@dest.test'])
      await t.resend.contacts.create({ email, firstName: email.slice(0, 3), segments: [{ id: seg }] } as never);
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest('the owner creates a broadcast, sends a test, sends it and sees the progress', async () => {
    await page.goto(t.url + '/');
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('link', { name: 'Broadcasts' }).click();
    await page.getByRole('heading', { name: 'No broadcasts yet' }).waitFor();
    await page.getByLabel('Name').fill('October news');
    await page.getByLabel('Segment').selectOption({ label: 'Readers' });
    await page.getByLabel('From').fill('News <news@example.com>');
    await page.getByLabel('Subject').fill('Hi {{{contact.first_name|you}}}');
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { name: 'October news' }).waitFor();

    await page.getByLabel('To (comma separated, up to 50)').fill('me@else.test');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test sent to me@else.test.').waitFor();
    await shots.shot('01-broadcast-draft', page);

    await page.getByRole('button', { name: 'Review before sending' }).click();
    await page.getByRole('button', { name: 'Send to 2 recipients now' }).click();
    await page.locator('.page-head .badge', { hasText: 'sent' }).waitFor({ timeout: 20_000 });
    await page.getByTestId('progress').getByText('Delivered').waitFor();
    await page.waitForFunction(
      () => /Delivered\s*2/.test(document.querySelector('[data-testid="progress"]')?.textContent ?? ''),
      undefined,
      { timeout: 20_000 },
    );
    await shots.shot('02-broadcast-sent', page);

    const list = (await t.resend.broadcasts.list()).data!.data;
    assert.deepEqual(
      list.map((b) => [b.name, b.status]),
      [['October news', 'sent']],
    );
    const emails = (await t.api('GET', `/emails?broadcast_id=${list[0].id}`)).body.data as { to: string[] }[];
    assert.deepEqual(emails.map((e) => e.to[0]).sort(), ['ann@dest.test', 'bob@dest.test']);
    assert.deepEqual(errors, []);
  });
});

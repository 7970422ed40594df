// The Audit log page in Chromium: entries of the owner's own changes listed with actor and change,
// the action filter narrowing them (through the URL, as a shared link would), and the CSV export
// downloaded by the browser with the same filter.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { browserSkip, browserTest, launchBrowser, OWNER, ownerPage, screenshots } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe('the audit log page in a browser', { timeout: 120_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-audit-log');

  before(async () => {
    if (browserSkip) return;
    t = await startTestApp({ deliveryMode: 'capture' });
    browser = await launchBrowser();
    page = await ownerPage(browser, t.url, errors);
    const k = await t.resend.apiKeys.create({ name: 'Deploy bot' });
    await t.resend.apiKeys.remove(k.data!.id);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest('the page lists changes with who made them, and the action filter narrows them', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const table = page.getByRole('table', { name: 'Audit log entries' });
    await table.getByText('api_key.revoked').waitFor();
    const revoked = table.getByRole('row').filter({ hasText: 'api_key.revoked' });
    await revoked.getByText('Bootstrap').waitFor();
    assert.match((await revoked.textContent()) ?? '', /name: Deploy bot/);
    await shots.shot('audit-log', page);
    await page.getByLabel('Action').selectOption('api_key.*');
    await page.waitForURL(/action=api_key/);
    await table.getByText('api_key.created').first().waitFor();
    const actions = await table.locator('tbody tr td:nth-child(2)').allTextContents();
    assert.ok(actions.length >= 2);
    assert.ok(
      actions.every((a) => a.startsWith('api_key.')),
      actions.join(),
    );
    assert.deepEqual(errors, []);
  });

  browserTest('Export CSV downloads the filtered entries', async () => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^audit-log-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    assert.match(lines[0], /^created_at,seq,action,/);
    assert.ok(lines.length >= 3);
    assert.ok(
      lines.slice(1).every((l) => /,api_key\.(created|revoked|updated),/.test(l)),
      csv,
    );
    assert.ok(csv.includes('Deploy bot'));
    assert.ok(!csv.includes(OWNER.password));
  });
});

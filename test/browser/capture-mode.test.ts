// Capture mode in Chromium tells one truth on every page: a banner says nothing leaves the machine,
// the domain page labels its records "not checked" (while the domain, verified, can send), and the
// Deliverability page says DNS health is not assessed instead of failing SPF, DKIM and DMARC.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { browserSkip, browserTest, launchBrowser, ownerPage, screenshots } from '../helpers/browser.js';

describe('capture mode in a browser', { timeout: 120_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-capture-mode');
  const banner = () => page.getByTestId('capture-banner');

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    // A developer's machine: an unqualified host name, which real SPF advice would have named.
    t = await startCaptureApp({ mxHost: 'vm' });
    browser = await launchBrowser();
    page = await ownerPage(browser, t.url, errors);
  });
  after(async () => {
    await browser?.close();
    await t?.close();
    if (!browserSkip) shots.report();
  });

  browserTest('every page opens with the capture-mode banner, which leads to the Mailbox', async () => {
    for (const p of ['/dashboard/domains', '/dashboard/emails', '/dashboard/contacts', '/dashboard/api-keys']) {
      await page.goto(t.url + p);
      await banner().waitFor();
      assert.match(await banner().innerText(), /Capture mode.*nothing leaves this machine/is, p);
    }
    await banner().getByRole('link', { name: 'Mailbox' }).click();
    await page.getByRole('heading', { name: 'Mailbox', level: 1 }).waitFor();
    assert.match(new URL(page.url()).pathname, /\/dashboard\/mailbox$/);
    assert.deepEqual(errors, []);
  });

  browserTest('the domain page says its records are not checked in DNS, while the domain stays verified', async () => {
    await page.goto(`${t.url}/dashboard/domains/${t.domainId}`);
    await page.getByRole('heading', { name: 'DNS records' }).waitFor();
    await page.locator('.page-head .badge', { hasText: 'verified' }).waitFor();
    const statuses = await page.locator('table.records tbody tr td:last-child').allInnerTexts();
    assert.ok(statuses.length >= 3);
    for (const s of statuses) assert.match(s, /^not checked$/i);
    assert.match(
      await page.locator('section.card', { hasText: 'DNS records' }).innerText(),
      /Capture mode: these records are not checked in DNS/,
    );
    await shots.shot('capture-domain', page);
  });

  browserTest('the Deliverability page says DNS health is not assessed: no failing check, no SPF advice', async () => {
    await page.getByRole('link', { name: 'Deliverability' }).click();
    const health = page.getByTestId('domain-health');
    await health.getByText(/nothing leaves this machine/).waitFor();
    const text = await health.innerText();
    assert.match(text, /not checked/i);
    assert.doesNotMatch(text, /\bfail\b|v=spf1/i);
    assert.equal(await health.locator('tr[data-check]').count(), 0);
    await shots.shot('capture-deliverability', page);
    assert.deepEqual(errors, []);
  });
});

// Every dashboard page on a 390×844 phone, with data present: the document is never wider than
// the screen (tables scroll inside their own box, filters wrap) and the Menu button stays on
// screen and opens the navigation. Screenshots of each page go to MAILROOM_SCREENSHOT_DIR.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import {
  browserSkip,
  browserTest,
  launchBrowser,
  PHONE,
  phonePage,
  screenshots,
  setUpOwner,
} from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe('the dashboard on a 390 px phone', { timeout: 170_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-phone');
  const ids = { email: '', webhook: '', log: '' };

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startCaptureApp();
    browser = await launchBrowser();
    page = await phonePage(browser, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest('the owner signs up on the phone and the team gets long-worded data on every page', async () => {
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    // Long addresses and subjects are what widen a table.
    for (let i = 0; i < 4; i++) {
      ids.email = await t.send({
        to: `a-rather-long-recipient-address-number-${i}@subdomain.example-destination.test`,
        subject: `Your monthly statement for the account ending in 42${i} is ready to download`,
      });
    }
    const hook = await t.api('POST', '/webhooks', {
      body: {
        endpoint: 'http://127.0.0.1:9/a/very/long/path/for/the/mailroom/webhook/events',
        events: ['email.delivered', 'email.bounced'],
      },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    ids.webhook = hook.body.id;
    for (let i = 0; i < 3; i++)
      assert.equal(
        (
          await t.api('POST', '/suppressions', {
            body: { email: `suppressed-person-${i}@a-long-domain-name.example.test` },
          })
        ).status,
        201,
      );
    for (let i = 0; i < 3; i++)
      assert.equal(
        (
          await t.api('POST', '/contacts', {
            body: {
              email: `contact-${i}@a-long-domain-name.example.test`,
              first_name: 'Firstname',
              last_name: 'Lastname-Hyphenated',
            },
          })
        ).status,
        201,
      );
    const logs = await t.api('GET', '/logs?limit=1');
    ids.log = logs.body.data[0].id;
  });

  const pages = () => [
    '/emails',
    `/emails/${ids.email}`,
    '/receiving',
    '/metrics',
    '/domains',
    `/domains/${t.domainId}`,
    '/api-keys',
    '/webhooks',
    `/webhooks/${ids.webhook}`,
    '/logs',
    `/logs/${ids.log}`,
    '/suppressions',
    '/contacts',
    '/mailbox',
    '/privacy',
    '/team',
    '/account',
  ];

  browserTest('no page is wider than the phone, and the Menu button is on screen on each', async () => {
    const wide: string[] = [];
    for (const p of pages()) {
      await page.goto(`${t.url}/dashboard${p}`);
      await page.locator('main h1').first().waitFor();
      await page.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 10_000 });
      await page.waitForTimeout(150); // charts and late rows
      const m = await page.evaluate(() => ({
        doc: document.documentElement.scrollWidth,
        body: document.body.scrollWidth,
        vw: window.innerWidth,
      }));
      const menu = await page.getByRole('button', { name: 'Menu' }).boundingBox();
      if (m.doc > PHONE.width || m.body > PHONE.width) wide.push(`${p}: ${m.doc} px`);
      if (!menu || menu.x < 0 || menu.x + menu.width > PHONE.width) wide.push(`${p}: Menu button at x=${menu?.x}`);
      await shots.shot(`phone${p.replace(/\//g, '-').replace(/-[0-9a-f-]{36}$/, '-detail')}`, page);
    }
    assert.deepEqual(wide, [], 'pages wider than 390 px');
  });

  browserTest('the Menu opens the navigation on the widest page', async () => {
    await page.goto(`${t.url}/dashboard/emails`);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Suppressions' }).click();
    await page.getByRole('heading', { name: 'Suppressions' }).waitFor();
    assert.deepEqual(errors, [], 'no script errors');
  });
});

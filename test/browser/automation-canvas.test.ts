// Issue 30, "journeys you can read", in Chromium at 1440×900 and 390×844: an automation's page draws
// its saved graph as a canvas (branches side by side, an empty branch ending the run), each step a
// card with its counts, and the counts move while the page is open as events arrive through the
// SDK (POST /events/send); templates are shown by name, and the runs list shows each contact's
// address. On a phone the canvas scrolls inside its frame: the page is never wider than 390 px.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Locator, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import {
  browserSkip,
  browserTest,
  desktopPage,
  launchBrowser,
  PHONE,
  screenshots,
  setUpOwner,
  untilReRead,
} from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe('The automation canvas with live counts', { timeout: 300_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-automation-canvas');
  let automation = '';

  before(async () => {
    if (browserSkip) return;
    t = await startCaptureApp();
    const c = await t.api('POST', '/templates', {
      body: { name: 'Pro welcome', from: 'Acme <hello@example.com>', subject: 'Welcome, pro', html: '<p>Hi</p>' },
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.equal((await t.api('POST', `/templates/${c.body.id}/publish`)).status, 200);
    const a = await t.resend.automations.create({
      name: 'Pro journey',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'journey.start' } },
        {
          key: 'is_pro',
          type: 'condition',
          config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' } as never,
        },
        { key: 'welcome', type: 'send_email', config: { template: { id: c.body.id } } },
        { key: 'hold', type: 'wait_for_event', config: { eventName: 'journey.done' } },
      ],
      connections: [
        { from: 'start', to: 'is_pro' },
        { from: 'is_pro', to: 'welcome', type: 'condition_met' },
        { from: 'welcome', to: 'hold' },
      ],
    });
    assert.equal(a.error, null, JSON.stringify(a.error));
    automation = a.data!.id;
    browser = await launchBrowser();
    page = await desktopPage(browser, errors, { width: 1440, height: 900 });
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  const card = (p: Page, key: string) => p.locator(`[data-testid="canvas-step"][data-key="${key}"]`);
  const count = (p: Page, key: string, name: string) => card(p, key).locator(`[data-count="${name}"]`);
  /** The page re-reads the counts by itself every 4 s (no reload here; the page's clock installed first). */
  const reRead = (p: Page, shown: Locator) => untilReRead(p, shown, 4000, 20_000);
  /** Until the card's count reads `n`. */
  const expectCount = (p: Page, key: string, name: string, n: number) =>
    reRead(p, count(p, key, name).filter({ hasText: new RegExp(`^${n}$`) }));
  const event = async (email: string, plan: string) =>
    assert.equal((await t.resend.events.send({ event: 'journey.start', email, payload: { plan } })).error, null);
  const pageWidth = (p: Page) =>
    p.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));

  browserTest('the canvas draws the graph with names, zero counts, then the counts move as events arrive', async () => {
    await page.goto(t.url + '/');
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    await page.clock.install(); // time runs as usual; reRead moves it on
    await page.goto(`${t.url}/dashboard/automations/${automation}`);
    await page.getByRole('heading', { name: 'Pro journey' }).waitFor();
    await page.getByRole('heading', { name: 'Journey', exact: true }).waitFor();
    // Turned on as a confirmed step.
    // An API-made send step without template variables reads as saved (it once read as changed, keeping Turn on away).
    await page.getByRole('button', { name: 'Turn on…' }).click();
    await page.getByRole('button', { name: 'Turn on Pro journey' }).click();
    await page.locator('.page-head .badge', { hasText: 'enabled' }).waitFor();

    const canvas = page.getByTestId('canvas');
    for (const k of ['start', 'is_pro', 'welcome', 'hold']) await expectCount(page, k, 'reached', 0);
    // Names, not ids: the send card names its template; the empty "No" branch is drawn as the run's end.
    await card(page, 'welcome').getByText('Pro welcome').waitFor();
    await card(page, 'is_pro').getByText('event.plan eq "pro"').waitFor();
    assert.equal(await canvas.getByText('Run ends').count(), 1);
    // Branches side by side: the send (Yes) and the end (No) sit on one row under the condition.
    const yes = (await card(page, 'welcome').boundingBox())!;
    const no = (await canvas.getByText('Run ends').boundingBox())!;
    const cond = (await card(page, 'is_pro').boundingBox())!;
    assert.ok(yes.y > cond.y + cond.height && no.y > cond.y + cond.height, 'both branches below the condition');
    assert.ok(no.x > yes.x + yes.width, 'the "No" branch to the right of the "Yes" one');
    assert.ok(Math.abs(yes.y - no.y) < 5, 'on the same row');
    await shots.shot('01-canvas-empty-1440', page);

    await event('ann@dest.test', 'pro');
    await expectCount(page, 'hold', 'waiting', 1);
    await expectCount(page, 'welcome', 'emails', 1);
    await reRead(page, card(page, 'welcome').locator('[data-rate="delivered"]', { hasText: '100% delivered' }));
    await event('dan@dest.test', 'free');
    await expectCount(page, 'is_pro', 'exited', 1);
    await expectCount(page, 'is_pro', 'reached', 2);
    await event('bob@dest.test', 'pro');
    await expectCount(page, 'hold', 'waiting', 2);
    await expectCount(page, 'welcome', 'emails', 2);
    assert.equal(await count(page, 'hold', 'reached').textContent(), '2');
    assert.equal(await count(page, 'start', 'reached').textContent(), '3');
    assert.equal(await count(page, 'hold', 'failed').textContent(), '0');
    await shots.shot('02-canvas-counts-1440', page);

    // The runs list names each run's contact.
    await page.getByRole('region', { name: 'Runs' }).getByRole('button', { name: 'Refresh' }).click();
    const contacts = page.getByTestId('run-contact');
    await contacts.nth(2).waitFor();
    assert.deepEqual((await contacts.allTextContents()).map((s) => s.trim()).sort(), [
      'ann@dest.test',
      'bob@dest.test',
      'dan@dest.test',
    ]);
    assert.ok((await pageWidth(page)) <= 1440, 'no horizontal overflow at 1440 px');

    // A run's page names its contact by address and its steps by what they do (the template's name, not its id).
    await page.getByTestId('runs').locator('tr', { hasText: 'ann@dest.test' }).getByRole('link').click();
    await page.getByTestId('run-step').nth(3).waitFor();
    await page.locator('.kv', { hasText: 'Contact' }).getByRole('link', { name: 'ann@dest.test' }).waitFor();
    const send = page.locator('[data-testid="run-step"][data-key="welcome"]');
    assert.match(await send.innerText(), /Send email\s+Pro welcome/);
    await page.goBack();
    await page.getByRole('heading', { name: 'Journey', exact: true }).waitFor();
    assert.deepEqual(errors, []);
  });

  browserTest('at 390 px the canvas scrolls in its frame, the page does not; counts still move', async () => {
    const ctx = await browser.newContext({
      viewport: PHONE,
      colorScheme: 'light',
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    ctx.setDefaultTimeout(10_000);
    const phone = await ctx.newPage();
    phone.on('pageerror', (e) => errors.push(e.message));
    await phone.clock.install();
    await phone.goto(`${t.url}/dashboard/automations/${automation}`);
    await phone.getByRole('heading', { name: 'Journey', exact: true }).waitFor();
    await expectCount(phone, 'hold', 'waiting', 2);
    const frame = phone.getByTestId('canvas');
    const m = await frame.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    assert.ok(m.scroll > m.client, `the canvas is wider than its frame and scrolls (${m.scroll} > ${m.client})`);
    assert.ok((await pageWidth(phone)) <= PHONE.width, 'the page is not wider than the phone');
    // Zoomed out, more of it fits; the page still does not widen.
    await phone.getByRole('button', { name: 'Zoom out' }).click();
    const z = await frame.evaluate((el) => el.scrollWidth);
    assert.ok(z < m.scroll, 'zooming out narrows the canvas');
    assert.equal(await phone.getByTestId('run-contact').first().isVisible(), true);
    await shots.shot('03-canvas-390', phone);

    assert.equal((await t.resend.events.send({ event: 'journey.done', email: 'ann@dest.test' })).error, null);
    await expectCount(phone, 'hold', 'exited', 1);
    await expectCount(phone, 'hold', 'waiting', 1);
    assert.ok((await pageWidth(phone)) <= PHONE.width);
    await shots.shot('04-canvas-390-after', phone);
    await ctx.close();
    assert.deepEqual(errors, []);
  });
});

// Contacts you can find, sizes and broadcast comparison (issue 30) in Chromium, at 1440 px and on a
// 390 px phone: one contact found among 10,000 by part of its address (seeded with one SQL insert),
// a property-filtered set bulk-added to a segment whose count then changes on the Segments page, a
// selection unsubscribed, the matching contacts exported as CSV, the composer's audience size
// changing as a topic is chosen, and the broadcast list comparing rates (sortable).
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import {
  browserSkip,
  browserTest,
  desktopPage,
  launchBrowser,
  PHONE,
  phonePage,
  screenshots,
  setUpOwner,
} from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';
import { until } from '../helpers/until.js';

const NEEDLE = 'zelda.needle-7731@hidden-example.org';

describe('finding contacts, bulk actions, sizes and broadcast rates in a browser', { timeout: 240_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  let phone: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-contacts-find');
  const ids = { team: '', vip: '', deals: '', tiny: '', sent: '' };
  const go = (p: Page, path: string) => p.goto(`${t.url}/dashboard${path}`);
  const total = (p: Page) => p.getByTestId('contacts-total');

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startCaptureApp({ broadcastPauseMinSample: 1_000_000 });
    browser = await launchBrowser();
    page = await desktopPage(browser, errors, { width: 1440, height: 900 });
    phone = await phonePage(browser, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    if (!browserSkip) shots.report();
  });

  browserTest('the owner signs up; the team gets 10,000 contacts in one SQL insert', async () => {
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
    assert.equal((await t.api('POST', '/contact-properties', { body: { key: 'plan', type: 'string' } })).status, 201);
    ids.vip = (await t.api('POST', '/segments', { body: { name: 'VIP' } })).body.id;
    ids.tiny = (await t.api('POST', '/segments', { body: { name: 'Tiny' } })).body.id;
    ids.deals = (await t.api('POST', '/topics', { body: { name: 'Deals', default_subscription: 'opt_in' } })).body.id;
    const first = await t.api('POST', '/contacts', { body: { email: NEEDLE, first_name: 'Zelda' } });
    ids.team = (await t.db.pool.query('SELECT team_id FROM contacts WHERE id = $1', [first.body.id])).rows[0].team_id;
    // 9,999 more: every 100th on the "pro" plan
    await t.db.pool.query(
      `INSERT INTO contacts (id, team_id, email, first_name, properties, created_at)
       SELECT gen_random_uuid(), $1, 'member' || i || '@bulk-example.test', 'Member' || i,
              CASE WHEN i % 100 = 0 THEN '{"plan": "pro"}'::jsonb ELSE '{"plan": "free"}'::jsonb END,
              now() - make_interval(secs => i)
       FROM generate_series(1, 9999) i`,
      [ids.team],
    );
    await t.db.pool.query('ANALYZE contacts');
  });

  browserTest('at 1440 px one contact is found among 10,000 by part of its address', async () => {
    await go(page, '/contacts');
    await total(page).filter({ hasText: '10,000 contacts' }).waitFor();
    const started = Date.now();
    await page.getByLabel('Search').fill('needle-7731@hidden');
    await page.getByLabel('Search').press('Enter');
    await total(page).filter({ hasText: '1 contact match' }).waitFor();
    const rows = page.getByTestId('contacts').locator('tbody tr');
    await rows.first().filter({ hasText: NEEDLE }).waitFor();
    assert.equal(await rows.count(), 1);
    assert.ok(Date.now() - started < 5_000, `search took ${Date.now() - started} ms`);
    assert.match(page.url(), /search=needle-7731/);
    await shots.shot('desktop-search', page);
  });

  browserTest('a property filter, "all matching", Add to segment: the Segments page shows the new count', async () => {
    await go(page, '/segments');
    const vipRow = page.getByTestId('segments').locator('tbody tr', { hasText: 'VIP' });
    assert.equal((await vipRow.getByTestId('segment-count').innerText()).trim(), '0');
    await go(page, '/contacts');
    await page.getByLabel('Property', { exact: true }).selectOption('plan');
    await page.getByLabel('Property value').fill('pro');
    await page.getByLabel('Property value').press('Enter');
    await total(page).filter({ hasText: '99 contacts match' }).waitFor();
    await page.getByLabel('Act on all 99 matching').check();
    await page.getByTestId('bulk-count').filter({ hasText: '99 contacts matching' }).waitFor();
    await page.getByLabel('Segment to add to').selectOption({ label: 'VIP' });
    await page.getByRole('button', { name: 'Add to segment' }).click();
    await page.getByTestId('bulk-note').filter({ hasText: '99 of 99 contacts added to the segment.' }).waitFor();
    await shots.shot('desktop-bulk-segment', page);
    await go(page, '/segments');
    await vipRow.getByTestId('segment-count').filter({ hasText: '99' }).waitFor();
    await shots.shot('desktop-segments-counts', page);
  });

  browserTest('a selection is unsubscribed, and the matching contacts export as CSV', async () => {
    await go(page, '/contacts?search=member10%40');
    await total(page).filter({ hasText: '1 contact match' }).waitFor();
    await go(page, '/contacts?search=member1');
    await total(page)
      .filter({ hasText: /\d contacts match/ })
      .waitFor();
    const rows = page.getByTestId('contacts').locator('tbody tr');
    const a = (await rows.nth(0).locator('td').nth(1).innerText()).trim();
    const b = (await rows.nth(1).locator('td').nth(1).innerText()).trim();
    await page.getByLabel(`Choose ${a}`).check();
    await page.getByLabel(`Choose ${b}`).check();
    await page.getByTestId('bulk-count').filter({ hasText: '2 contacts chosen' }).waitFor();
    await page.getByRole('button', { name: 'Unsubscribe', exact: true }).click();
    await page.getByTestId('bulk-note').filter({ hasText: '2 of 2 contacts unsubscribed.' }).waitFor();
    for (const email of [a, b]) {
      const c = await t.api('GET', `/contacts/${encodeURIComponent(email)}`);
      assert.equal(c.body.unsubscribed, true, email);
    }
    await page.getByTestId('contacts').locator('tbody tr', { hasText: a }).getByText('Unsubscribed').waitFor();
    // export everything the search matches, with the plan column
    await go(page, '/contacts?search=member999');
    await total(page)
      .filter({ hasText: /^11 contacts match$/ })
      .waitFor(); // member999, member9990-9999
    await page.getByLabel('Act on all 11 matching').check();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Export CSV' }).click(),
    ]);
    const csv = fs.readFileSync((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines[0], 'id,email,first_name,last_name,unsubscribed,created_at');
    assert.equal(lines.length, 12);
    assert.ok(
      lines.slice(1).every((l) => /,member999\d?@bulk-example\.test,/.test(l)),
      csv,
    );
  });

  browserTest('Delete asks for a confirmation naming the count', async () => {
    await go(page, '/contacts?search=member9999%40');
    await total(page)
      .filter({ hasText: /^1 contact match$/ })
      .waitFor();
    await page.getByLabel('Choose member9999@bulk-example.test').check();
    const asked: string[] = [];
    page.once('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByTestId('bulk-note').filter({ hasText: '1 of 1 contact deleted.' }).waitFor();
    assert.deepEqual(asked, ['Delete 1 contact? This cannot be undone.']);
    assert.equal((await t.api('GET', '/contacts/member9999@bulk-example.test')).status, 404);
    await page.getByRole('heading', { name: 'No contacts match' }).waitFor();
  });

  browserTest('chosen property columns show and are remembered after a reload', async () => {
    await go(page, '/contacts?search=needle');
    await page.getByText('Columns', { exact: true }).click();
    await page.getByRole('checkbox', { name: 'plan' }).check();
    await page.getByTestId('contacts').locator('thead th', { hasText: 'plan' }).waitFor();
    await page.reload();
    await page.getByTestId('contacts').locator('thead th', { hasText: 'plan' }).waitFor();
  });

  browserTest("the composer's audience size changes when a topic is chosen", async () => {
    // ten VIPs opt out of Deals
    const vips = (await t.api('GET', `/contacts?segment_id=${ids.vip}&limit=10`)).body.data.map(
      (c: { id: string }) => c.id,
    );
    const r = await t.api('POST', '/contacts/bulk', {
      body: { action: 'set_topic', contacts: vips, topic_id: ids.deals, subscription: 'opt_out' },
    });
    assert.equal(r.body.changed, 10);
    const expect = async (topic?: string) =>
      (await t.api('GET', `/broadcasts/audience?segment_id=${ids.vip}${topic ? `&topic_id=${topic}` : ''}`)).body
        .recipients as number;
    const all = await expect();
    const inTopic = await expect(ids.deals);
    assert.equal(all - inTopic, 10);
    await go(page, '/broadcasts');
    await page.getByLabel('Segment').selectOption({ label: 'VIP' });
    await page
      .getByTestId('audience-size')
      .filter({ hasText: `Would reach ${all} of 99 contacts` })
      .waitFor();
    await page.getByLabel('Topic (only its subscribers receive it)').selectOption({ label: 'Deals' });
    await page
      .getByTestId('audience-size')
      .filter({ hasText: `Would reach ${inTopic} of 99 contacts` })
      .waitFor();
    assert.match(await page.getByTestId('audience-size').innerText(), /10 out of the topic/);
    await shots.shot('desktop-composer-audience', page);
  });

  browserTest('the broadcast list compares rates side by side and sorts by them', async () => {
    for (const email of ['ann@dest.test', 'bob@dest.test'])
      await t.api('POST', '/contacts', { body: { email, segments: [{ id: ids.tiny }] } });
    const sent = await t.api('POST', '/broadcasts', {
      body: {
        name: 'Rated',
        segment_id: ids.tiny,
        from: 'News <news@example.com>',
        subject: 'Hi',
        html: '<p>Hi</p>',
        send: true,
      },
    });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    ids.sent = sent.body.id;
    await t.api('POST', '/broadcasts', {
      body: {
        name: 'Draft only',
        segment_id: ids.tiny,
        from: 'News <news@example.com>',
        subject: 'Hi',
        html: '<p>Hi</p>',
      },
    });
    const emails = await until('the broadcast delivered', async () => {
      const r = await t.api('GET', `/emails?broadcast_id=${ids.sent}&limit=10`);
      const l = r.body.data as { id: string; last_event: string }[];
      return l.length === 2 && l.every((e) => e.last_event === 'delivered') && l;
    });
    await t.db.pool.query(
      `INSERT INTO email_events (id, email_id, team_id, type, recipient, data) VALUES (gen_random_uuid(), $1, $2, 'email.opened', NULL, '{}')`,
      [emails[0].id, ids.team],
    );
    await go(page, '/broadcasts');
    const row = page.getByTestId('broadcasts').locator('tbody tr', { hasText: 'Rated' });
    await row.locator('[data-col="opened"]').filter({ hasText: '50%' }).waitFor();
    assert.equal((await row.locator('[data-col="sent"]').innerText()).trim(), '2');
    assert.equal((await row.locator('[data-col="delivered"]').innerText()).trim(), '100%');
    assert.equal((await row.locator('[data-col="complained"]').innerText()).trim(), '0%');
    const names = () => page.getByTestId('broadcasts').locator('tbody tr td:first-child a').allInnerTexts();
    await page.getByRole('button', { name: 'Opened' }).click(); // highest first
    assert.deepEqual((await names()).slice(0, 2), ['Rated', 'Draft only']);
    await page.getByRole('button', { name: /Opened/ }).click(); // lowest first
    assert.deepEqual((await names()).slice(-1), ['Rated']);
    await shots.shot('desktop-broadcast-rates', page);
  });

  browserTest(
    'on a 390 px phone: find the contact, see segment sizes and rates, nothing wider than the screen',
    async () => {
      await phone.goto(`${t.url}/`);
      await phone.getByLabel('Email').fill('owner@example.com');
      await phone.getByLabel('Password').fill('owner-password-1');
      await phone.getByRole('button', { name: 'Sign in' }).click();
      await phone.getByRole('button', { name: 'Menu' }).waitFor(); // the signed-in shell
      const wide: string[] = [];
      const width = async (what: string) => {
        const w = await phone.evaluate(() => document.documentElement.scrollWidth);
        if (w > PHONE.width) wide.push(`${what}: ${w} px`);
      };
      await go(phone, '/contacts');
      await total(phone)
        .filter({ hasText: /\d{1,2},\d{3} contacts/ })
        .waitFor();
      await phone.getByLabel('Search').fill('hidden-example');
      await phone.getByLabel('Search').press('Enter');
      await total(phone).filter({ hasText: '1 contact match' }).waitFor();
      await phone.getByTestId('contacts').locator('tbody tr', { hasText: NEEDLE }).waitFor();
      await phone.getByLabel(`Choose ${NEEDLE}`).check();
      await phone.getByRole('link', { name: 'Export CSV' }).waitFor();
      await width('contacts');
      await shots.shot('phone-contacts', phone);
      await go(phone, '/segments');
      await phone
        .getByTestId('segments')
        .locator('tbody tr', { hasText: 'VIP' })
        .getByTestId('segment-count')
        .filter({ hasText: '99' })
        .waitFor();
      await width('segments');
      await go(phone, '/broadcasts');
      await phone.getByLabel('Segment').selectOption({ label: 'VIP' });
      await phone.getByTestId('audience-size').filter({ hasText: 'Would reach' }).waitFor();
      await phone
        .getByTestId('broadcasts')
        .locator('tbody tr', { hasText: 'Rated' })
        .locator('[data-col="opened"]')
        .filter({ hasText: '50%' })
        .waitFor();
      await width('broadcasts');
      await shots.shot('phone-broadcasts', phone);
      assert.deepEqual(wide, []);
      assert.deepEqual(errors, []);
    },
  );
});

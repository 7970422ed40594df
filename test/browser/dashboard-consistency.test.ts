// Issue 30, defect 5, in Chromium at 1440×900: the Emails filter "Opened" means "was opened" (an
// email clicked after its open is still opened), as Metrics counts it; a template's published
// version is labelled "published"; an unknown dashboard URL says so instead of showing Emails; and
// a "not found" answer offers no Retry (asking again cannot find it).
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

describe('The dashboard says what is true: opened emails, published versions, missing pages', {
  timeout: 180_000,
}, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-dashboard-consistency');
  const publicUrl = 'https://track.mailroom.test';
  const ids = { clicked: '', opened: '', plain: '', template: '' };
  const events = async (id: string) =>
    ((await t.api('GET', `/emails/${id}/events`)).body.data as { type: string }[]).map((e) => e.type);

  before(async () => {
    if (browserSkip) return;
    t = await startCaptureApp({ publicUrl });
    const r = await t.api('PATCH', `/domains/${t.domainId}`, { body: { open_tracking: true, click_tracking: true } });
    assert.equal(r.status, 200);
    const html = '<html><body><p>Hi <a href="https://shop.test/item">the item</a></p></body></html>';
    ids.clicked = await t.send({ to: 'clicker@dest.test', html });
    ids.opened = await t.send({ to: 'opener@dest.test', html });
    ids.plain = await t.send({ to: 'nobody@dest.test', html });
    for (const id of Object.values(ids).filter(Boolean))
      await until('delivered', async () => (await events(id)).includes('email.delivered'));
    // Opened both; then the first is clicked, so its last event is "clicked".
    for (const id of [ids.clicked, ids.opened]) {
      const { rows } = await t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [id]);
      const sent = (await simpleParser(rows[0].raw)).html as string;
      const local = (u: string) => u.replace(publicUrl, t.url);
      assert.equal((await fetch(local(/src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(sent)![1]))).status, 200);
      await until('opened', async () => (await events(id)).includes('email.opened'));
      if (id === ids.clicked) {
        const link = /href="([^"]+\/t\/c\/[^"]+)"/.exec(sent)![1];
        assert.equal((await fetch(local(link), { redirect: 'manual' })).status, 302);
        await until('clicked', async () => (await events(id)).includes('email.clicked'));
      }
    }
    await until(
      'the clicked email shows clicked',
      async () => (await t.resend.emails.get(ids.clicked)).data!.last_event === 'clicked',
    );
    const tpl = await t.api('POST', '/templates', { body: { name: 'Receipt', subject: 'Receipt', html: '<p>x</p>' } });
    ids.template = tpl.body.id;
    assert.equal((await t.api('POST', `/templates/${ids.template}/publish`)).status, 200);
    browser = await launchBrowser();
    page = await desktopPage(browser, errors, { width: 1440, height: 900 });
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('heading', { name: 'Domains' }).waitFor();
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest('"Opened" lists every email that was opened, as many as Metrics counts', async () => {
    await page.goto(`${t.url}/dashboard/emails`);
    await page.getByRole('heading', { name: 'Emails' }).waitFor();
    await page.getByLabel('Status').selectOption('opened');
    const rows = page.locator('table.list tbody tr');
    await until('the opened emails', async () => (await rows.count()) === 2 && !page.url().endsWith('/emails'), 15_000);
    const listed = (await rows.allInnerTexts()).join('\n');
    assert.match(listed, /clicker@dest\.test/);
    assert.match(listed, /opener@dest\.test/);
    assert.doesNotMatch(listed, /nobody@dest\.test/);
    const m = await t.api('GET', '/emails/metrics');
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal(m.body.totals.opened, 2, 'Metrics counts the same two');
    assert.equal(((await t.api('GET', '/emails?status=opened')).body.data as unknown[]).length, 2);
    await shots.shot('01-emails-opened', page);
    assert.deepEqual(errors, []);
  });

  browserTest('the published version of a template is labelled "published"', async () => {
    await page.goto(`${t.url}/dashboard/templates/${ids.template}`);
    const versions = page.getByTestId('versions');
    await versions.locator('tbody tr').first().waitFor();
    await versions.locator('.badge', { hasText: /^published$/ }).waitFor();
    assert.equal(await versions.locator('.badge', { hasText: 'sending' }).count(), 0);
  });

  browserTest('an unknown dashboard URL says there is no such page, and stays where it is', async () => {
    await page.goto(`${t.url}/dashboard/no-such-page`);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    await page.getByText('There is no page at /dashboard/no-such-page').waitFor();
    assert.ok(page.url().endsWith('/dashboard/no-such-page'), page.url());
    assert.equal(await page.getByRole('heading', { name: 'Emails', exact: true }).count(), 0);
    await shots.shot('02-not-found', page);
    assert.deepEqual(errors, []);
  });

  browserTest('a "not found" answer offers no Retry (a server error keeps it: metrics-errors.test.ts)', async () => {
    await page.goto(`${t.url}/dashboard/emails/00000000-0000-4000-8000-000000000000`);
    await page.getByTestId('load-error').waitFor();
    assert.match(await page.getByTestId('load-error').innerText(), /not found/i);
    assert.equal(await page.getByRole('button', { name: 'Retry' }).count(), 0);
    await shots.shot('03-email-not-found', page);
    assert.deepEqual(errors, []);
  });
});

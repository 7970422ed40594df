// The Templates pages in Chromium: the owner creates a template, gives it a subject, HTML and a
// variable, sees the server-rendered preview (escaped sample value, missing variables flagged),
// publishes it, edits it again (unpublished changes, a new version), and the API sends with it.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe('Templates pages in a browser', { timeout: 120_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-templates');
  const shot = (name: string) => shots.shot(name, page);

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startTestApp({ deliveryMode: 'capture' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
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

  browserTest('the owner creates a template, sees its preview with a sample value, and publishes it', async () => {
    await page.goto(t.url + '/');
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('heading', { name: 'No templates yet' }).waitFor();
    await page.getByLabel('Template name').fill('Welcome');
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'Welcome', exact: true }).waitFor();

    await page.getByLabel('Alias', { exact: true }).fill('welcome');
    await page.getByLabel('From', { exact: true }).fill('Acme <hi@example.com>');
    await page.getByLabel('Subject', { exact: true }).fill('Your {{{PRODUCT}}}');
    await page.getByLabel('HTML', { exact: true }).fill('<h1>Thanks for {{{PRODUCT}}}</h1>');
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable 1 key').fill('PRODUCT');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('No value yet for PRODUCT').waitFor();

    await page.locator('#sample-PRODUCT').fill('Fish & <Chips>');
    await page.getByTestId('preview-subject').filter({ hasText: 'Your Fish & <Chips>' }).waitFor();
    const frame = page.frameLocator('iframe[title="Preview of Welcome"]');
    await frame.locator('h1', { hasText: 'Thanks for Fish & <Chips>' }).waitFor(); // escaped in the HTML, so shown as text
    await shot('01-template-editor');
    await page.locator('iframe[title="Preview of Welcome"]').scrollIntoViewIfNeeded();
    await shots.shot('01b-template-preview', page, false); // a full-page capture leaves sandboxed frames blank

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.locator('.page-head .badge', { hasText: 'published' }).waitFor();
    // Version 1 was the starter body written on create, version 2 the saved draft, now published.
    const versions = page.getByTestId('versions').locator('tbody tr');
    await versions
      .first()
      .filter({ hasText: /published(?! before)/i })
      .waitFor();
    assert.equal(await versions.count(), 2);
    assert.match(await versions.first().innerText(), /#2/);
    assert.deepEqual(errors, []);
  });

  browserTest(
    'an edit after publishing shows unpublished changes and a new version; sends keep the published one',
    async () => {
      await page.getByLabel('HTML', { exact: true }).fill('<h1>Version two: {{{PRODUCT}}}</h1>');
      await page.getByRole('button', { name: 'Save draft' }).click();
      await page.locator('.page-head .badge', { hasText: 'unpublished changes' }).waitFor();
      await page.getByTestId('versions').locator('tbody tr').nth(2).waitFor();
      assert.match(
        await page.getByTestId('versions').locator('tbody tr').nth(1).innerText(),
        /#2[\s\S]*published(?! before)/i,
      );
      await shot('02-template-unpublished');

      const sent = await t.resend.emails.send({
        to: 'a@dest.test',
        template: { id: 'welcome', variables: { PRODUCT: 'Lamp' } },
      });
      assert.equal(sent.error, null, JSON.stringify(sent.error));
      const raw = (await t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [sent.data!.id])).rows[0]
        .raw as Buffer;
      const mail = await simpleParser(raw);
      assert.equal(mail.subject, 'Your Lamp');
      assert.equal(mail.html, '<h1>Thanks for Lamp</h1>');

      await page.getByRole('link', { name: '← Templates' }).click();
      const row = page.getByTestId('templates').locator('tbody tr', { hasText: 'Welcome' });
      await row.waitFor();
      assert.match(await row.innerText(), /welcome[\s\S]*published/i);
      await shot('03-templates-list');
      assert.deepEqual(errors, []);
    },
  );
});

// Settings a user expects to find in the dashboard, in Chromium: a webhook endpoint's events edited
// (contact.* among them), its secret rotated, an attempt's request body; API keys with their
// token prefix, permission and domain, the "your new key" banner gone once that key is revoked; a domain's receiving switch, Ed25519 signing and
// return-path subdomain. Each change is checked through the API.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe('webhook, API key and domain settings in a browser', { timeout: 150_000 }, () => {
  let t: CaptureApp;
  let hook: Receiver;
  let browser: Browser;
  let page: Page;
  let webhookId = '';
  let firstSecret = '';
  const errors: string[] = [];
  const shots = screenshots('mailroom-settings');

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
    const w = await t.api('POST', '/webhooks', { body: { endpoint: hook.url, events: ['email.delivered'] } });
    webhookId = w.body.id;
    firstSecret = w.body.signing_secret;
    await t.send({ to: 'ann@dest.test', subject: 'Hello Ann' });
    await hook.waitFor(1);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
      () => hook?.close(),
    );
    shots.report();
  });

  browserTest("an endpoint's events are edited on its page, contact events included", async () => {
    await page.goto(`${t.url}/dashboard/webhooks/${webhookId}`);
    await page.getByRole('button', { name: 'Edit events' }).click();
    const form = page.getByTestId('edit-events');
    await form.getByLabel('contact.created').check();
    await form.getByLabel('email.bounced').check();
    await shots.shot('webhook-edit-events', page);
    await form.getByRole('button', { name: 'Save events' }).click();
    await form.waitFor({ state: 'detached' });
    const after = (await t.api('GET', `/webhooks/${webhookId}`)).body;
    assert.deepEqual([...after.events].sort(), ['contact.created', 'email.bounced', 'email.delivered']);
  });

  browserTest('rotating the secret shows the new one, and the API agrees', async () => {
    page.once('dialog', (d) => {
      void d.accept();
    });
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    const shown = (await page.getByTestId('rotated-secret').locator('code').innerText()).trim();
    assert.match(shown, /^whsec_/);
    assert.notEqual(shown, firstSecret);
    assert.equal((await t.api('GET', `/webhooks/${webhookId}`)).body.signing_secret, shown);
  });

  browserTest('an attempt shows the request body the endpoint received', async () => {
    const row = page.getByTestId('webhook-log').locator('tr', { hasText: 'email.delivered' });
    await row.getByRole('button', { name: 'Attempts' }).click();
    const body = page.getByTestId('request-body');
    await body.locator('summary').click();
    assert.match(await body.locator('pre').innerText(), /"type": "email\.delivered"[\s\S]*ann@dest\.test/);
    await shots.shot('webhook-request-body', page);
  });

  browserTest('the "your new key" banner goes away when that key is revoked', async () => {
    await page.goto(`${t.url}/dashboard/api-keys`);
    await page.getByLabel('Name').fill('Short-lived');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = (await page.getByTestId('new-token').innerText()).trim();
    const row = page.locator('table.list tbody tr', { hasText: 'Short-lived' });
    await row.waitFor();
    const cells = await row.locator('td').allInnerTexts();
    assert.ok(token.startsWith(cells[1].replace(/…$/, '')) && cells[1].length > 4, `token prefix column: ${cells[1]}`);
    assert.deepEqual(cells.slice(2, 4), ['Full access', '—']);
    await shots.shot('api-keys-columns', page);
    page.once('dialog', (d) => {
      void d.accept();
    });
    await page.getByRole('button', { name: 'Revoke Short-lived' }).click();
    await page.getByTestId('new-token').waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Revoke Short-lived' }).waitFor({ state: 'detached' });
  });

  browserTest(
    'a domain gets its return-path subdomain at creation, then receiving and Ed25519 switched on from its page',
    async () => {
      await page.goto(`${t.url}/dashboard/domains`);
      // A validation error reads in plain words, not like the API ("Invalid `name` field").
      await page.getByLabel('Domain name').fill('not a domain');
      await page.getByRole('button', { name: 'Add domain' }).click();
      const alert = page.locator('form .alert');
      await alert.waitFor();
      assert.doesNotMatch(await alert.innerText(), /`|Invalid `name`/);
      assert.match(await alert.innerText(), /^Check the name: /);
      await page.getByLabel('Domain name').fill('shop.test');
      await page.getByLabel('Return-path subdomain').fill('bounces');
      await page.getByRole('button', { name: 'Add domain' }).click();
      await page.getByRole('heading', { name: 'DNS records' }).waitFor();
      const id = new URL(page.url()).pathname.split('/').pop()!;
      assert.equal((await t.api('GET', `/domains/${id}`)).body.custom_return_path, 'bounces');
      await page.getByLabel('Receive mail at shop.test').click(); // saved at once; the box follows the server's answer
      await page.waitForFunction(
        async (d) => (await (await fetch(`/domains/${d}`)).json()).capabilities.receiving === 'enabled',
        id,
      );
      await page.getByLabel('Also sign with Ed25519').click();
      await page.waitForFunction(async (d) => (await (await fetch(`/domains/${d}`)).json()).dkim_ed25519 === true, id);
      await page.locator('table.records tbody tr', { hasText: 'mailroom-ed25519' }).waitFor();
      await page.locator('table.records tbody tr', { hasText: /MX/ }).first().waitFor();
      assert.equal(await page.getByLabel('Receive mail at shop.test').isChecked(), true);
      assert.equal(await page.getByLabel('Also sign with Ed25519').isChecked(), true);
      await shots.shot('domain-settings', page);
      assert.deepEqual(errors, [], 'no script errors');
    },
  );
});

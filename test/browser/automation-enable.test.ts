// Issue 30, defect 3, in Chromium at 1440×900. The builder draws a condition's empty "No" branch as
// "the run ends here", and that is what it is: the graph saves (the API accepts a branch left
// unconnected) and a contact for whom the condition fails ends the run there, with no email.
// Turning the automation on is its own step after Save: an explicit confirmation naming the
// automation, which Cancel leaves off.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

describe('An automation with an empty branch, turned on only after a confirmation', { timeout: 300_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-automation-enable');
  let automation = '';

  before(async () => {
    if (browserSkip) return;
    t = await startCaptureApp();
    const c = await t.api('POST', '/templates', {
      body: { name: 'Pro welcome', from: 'Acme <hello@example.com>', subject: 'Welcome, pro', html: '<p>Hi</p>' },
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.equal((await t.api('POST', `/templates/${c.body.id}/publish`)).status, 200);
    assert.equal((await t.api('POST', '/events', { body: { name: 'user.created' } })).status, 201);
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

  browserTest('a condition whose "No" branch is empty saves, as drawn: the run ends there', async () => {
    await page.goto(t.url + '/');
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('link', { name: 'Automations' }).click();
    await page.getByRole('heading', { name: 'No automations yet' }).waitFor();
    await page.getByRole('button', { name: 'New automation' }).click();
    await page.getByRole('heading', { name: 'New automation' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Pro onboarding');
    await page.getByLabel('trigger: event', { exact: true }).selectOption('user.created');
    await page.getByLabel('Step to add after trigger').selectOption({ label: 'Condition' });
    await page.getByRole('button', { name: 'Add step after trigger' }).click();
    await page.getByLabel('condition_1 rule 1: field', { exact: true }).fill('plan');
    await page.getByLabel('condition_1 rule 1: value', { exact: true }).fill('pro');
    await page.getByRole('button', { name: 'Add step after condition_1: Yes: the condition is met' }).click();
    await page.getByLabel('send_email_1: template').selectOption({ label: 'Pro welcome' });
    const no = page.getByRole('region', { name: 'condition_1: No: it is not met' });
    await no.getByText('No steps: the run ends here.').waitFor();
    await page.getByRole('button', { name: 'Create automation' }).click();
    await page.getByRole('heading', { name: 'Pro onboarding' }).waitFor();
    automation = page.url().split('/').pop()!;
    const a = (await t.api('GET', `/automations/${automation}`)).body;
    assert.equal(a.status, 'disabled', 'saving does not turn it on');
    assert.deepEqual(a.connections, [
      { from: 'trigger', to: 'condition_1', type: 'default' },
      { from: 'condition_1', to: 'send_email_1', type: 'condition_met' },
    ]);
    await shots.shot('01-saved-with-empty-branch', page);
    assert.deepEqual(errors, []);
  });

  browserTest('turning it on asks first; Cancel leaves it off; confirmed, a run ends on the empty branch', async () => {
    assert.equal(await page.getByRole('switch').count(), 0, 'no one-click switch');
    await page.getByRole('button', { name: 'Turn on…' }).click();
    const ask = page.getByRole('group', { name: 'Turn on the automation' });
    await ask.getByText('every user.created event starts a run').waitFor();
    await shots.shot('02-confirm-turn-on', page, false);
    await ask.getByRole('button', { name: 'Cancel' }).click();
    assert.equal((await t.api('GET', `/automations/${automation}`)).body.status, 'disabled');
    await page.getByRole('button', { name: 'Turn on…' }).click();
    await page.getByRole('button', { name: 'Turn on Pro onboarding' }).click();
    await page.locator('.page-head .badge', { hasText: 'enabled' }).waitFor();
    assert.equal((await t.api('GET', `/automations/${automation}`)).body.status, 'enabled');

    const send = async (email: string, plan: string) =>
      assert.equal(
        (await t.api('POST', '/events/send', { body: { event: 'user.created', email, payload: { plan } } })).status,
        202,
      );
    await send('free@dest.test', 'free');
    await send('pro@dest.test', 'pro');
    const runs = async () =>
      (await t.api('GET', `/automations/${automation}/runs`)).body.data as { id: string; status: string }[];
    await until(
      'both runs complete',
      async () => {
        const r = await runs();
        return r.length === 2 && r.every((x) => x.status === 'completed');
      },
      30_000,
    );
    const emails = (await t.api('GET', '/emails?limit=10')).body.data as { to: string[] }[];
    assert.deepEqual(
      emails.map((e) => e.to[0]),
      ['pro@dest.test'],
      'only the contact on the "Yes" branch got mail',
    );
    assert.deepEqual(errors, []);
  });
});

// The reputation guard in Chromium: hard bounces through a recording MX pause the sending domain;
// the dashboard shows the app-wide banner, the domain page shows the reason, the rates and the
// charts with thresholds; the owner resumes it with the button and the API agrees.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

describe('the reputation guard in a browser', { timeout: 180_000 }, () => {
  let w: MailWorld;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-reputation');

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    w = await startMailWorld({ reputationMinSample: 10 });
    w.mx.onRcpt = (a) => (a.startsWith('bad') ? { code: 550, message: '5.1.1 No such user' } : undefined);
    const send = async (to: string) =>
      (await w.t.resend.emails.send({ from: 'Acme <hello@example.com>', to, subject: 'Hi', html: '<p>Hi</p>' })).data!
        .id;
    for (let i = 0; i < 10; i++) await waitForLastEvent(w.t, await send(`ok${i}@dest.test`), ['delivered'], 30_000);
    await waitForLastEvent(w.t, await send('bad@dest.test'), ['bounced'], 30_000);
    await until(
      'the guard paused',
      async () => (await w.t.api('GET', `/domains/${w.domainId}/reputation`)).body.state === 'paused',
      30_000,
    );
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => w?.close(),
    );
    shots.report();
  });

  browserTest(
    'a paused domain shows a banner everywhere; its page shows why, the rates and charts; Resume lifts it',
    async () => {
      await page.goto(w.t.url + '/');
      await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
      await setUpOwner(page);
      const banner = page.locator('.reputation-alert');
      await banner.getByText('example.com').waitFor();
      assert.match(
        await banner.innerText(),
        /paused by the reputation guard.*hard-bounce rate 9\.09% over the last hour \(1 of 11\)/s,
      );
      await shots.shot('01-app-banner', page);

      await banner.getByRole('link', { name: 'Review and resume' }).click();
      await page.getByRole('heading', { name: 'example.com' }).waitFor();
      const panel = page.locator('section.reputation');
      await panel.getByText('Paused by the reputation guard').waitFor();
      assert.match(await panel.innerText(), /Last hour\s+11\s+1\s+9\.09%/);
      await panel.locator('figure.chart canvas').first().waitFor();
      assert.equal(await panel.locator('figure.chart').count(), 2);
      assert.match(await panel.locator('figure.chart').first().innerText(), /Warn 2\.00%[\s\S]*Pause 5\.00%/);
      assert.equal(
        await page.locator('.reputation-alert').count(),
        0,
        'the app-wide banner gives way to the panel on the domain page',
      );
      await panel.scrollIntoViewIfNeeded();
      await shots.shot('02-domain-paused', page);

      page.once('dialog', (d) => void d.accept());
      await panel.getByRole('button', { name: 'Resume sending' }).click();
      await panel.getByText('Reputation: ok').waitFor();
      await shots.shot('03-domain-resumed', page);
      const rep = (await w.t.api('GET', `/domains/${w.domainId}/reputation`)).body;
      assert.equal(rep.state, 'ok');
      assert.equal(rep.resumed_by, 'user:owner@example.com');
      await page.getByRole('link', { name: 'Emails' }).click();
      await page.getByRole('heading', { name: 'Emails' }).waitFor();
      assert.equal(await page.locator('.reputation-alert').count(), 0);
      assert.deepEqual(errors, []);
    },
  );
});

// Deliverability insights in Chromium: an email's page lists its findings (severity, title, what
// was found, the fix), a receiver's 5xx reply is explained there, a clean email says nothing was
// found, and Metrics lists the team's most common findings of the last 7 days with counts and a
// link to an example; all fit a phone screen. Mail goes to a loopback MX through the fake DNS.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';
import { browserSkip, browserTest, launchBrowser, ownerPage, screenshots } from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

describe('Insights in the dashboard', { timeout: 150_000 }, () => {
  let w: MailWorld;
  let browser: Browser;
  let page: Page;
  let badId = '';
  let cleanId = '';
  let bouncedId = '';
  const errors: string[] = [];
  const shots = screenshots('mailroom-insights');

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    w = await startMailWorld();
    browser = await launchBrowser();
    page = await ownerPage(browser, w.t.url, errors);
    const send = async (body: Record<string, unknown>) => {
      const r = await w.t.resend.emails.send({
        from: 'Acme <hello@example.com>',
        to: 'ada@dest.test',
        ...body,
      } as never);
      assert.equal(r.error, null);
      return r.data!.id;
    };
    badId = await send({
      from: '"PayPal.com Support" <no-reply@example.com>',
      subject: 'ACT NOW!!!',
      html: '<p>Your account needs attention: <a href="https://bit.ly/3abc">verify it here</a>.</p><p><img src="https://i.imgur.com/a.png"></p><p><a href="https://example.com/prefs">Unsubscribe</a></p>',
    });
    await send({
      subject: 'Your code: 123456',
      html: '<p>Use <a href="https://tinyurl.com/abc">this link</a> to sign in.</p>',
    });
    cleanId = await send({
      subject: 'Your order 1042 has shipped',
      html: '<p>Hi Ada, your order 1042 has shipped and arrives on Thursday. <a href="https://example.com/orders/1042">Follow it</a>.</p>',
    });
    w.mx.onRcpt = (a) =>
      a === 'strict@dest.test'
        ? {
            code: 550,
            message: "5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy",
          }
        : undefined;
    bouncedId = await send({ to: 'strict@dest.test', subject: 'Your receipt', text: 'Thanks for your order 1042.' });
    await waitForLastEvent(w.t, bouncedId, ['bounced']);
    await until('the bounce explained', async () =>
      (await w.t.api('GET', `/emails/${bouncedId}/insights`)).body.data.some(
        (f: { id: string }) => f.id === 'receiver-rejected',
      ),
    );
    // Emails are analyzed off the request path (their delivery jobs): the team's counts need all four.
    await until(
      'all four emails analyzed',
      async () => (await w.t.api('GET', '/insights?days=7')).body.analyzed === 4,
      30_000,
    );
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => w?.close(),
    );
    shots.report();
  });

  const finding = (id: string) => page.getByTestId('insights').locator(`[data-finding="${id}"]`);

  browserTest("an email's page lists its findings, errors first, each with what was found and the fix", async () => {
    await page.goto(`${w.t.url}/dashboard/emails/${badId}`);
    await page.getByRole('heading', { name: 'Insights' }).waitFor();
    await finding('link-shortener').waitFor();
    const ids = await page
      .getByTestId('insights')
      .locator('[data-finding]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-finding')));
    assert.deepEqual([...ids].sort(), [
      'from-name-domain',
      'image-external-host',
      'image-missing-alt',
      'link-domain-mismatch',
      'link-shortener',
      'list-unsubscribe-missing',
      'no-reply-address',
      'subject-all-caps',
      'subject-spam-trigger',
    ]);
    assert.equal(ids[0], 'from-name-domain', 'the error comes first');
    const spoof = await finding('from-name-domain').innerText();
    assert.match(spoof, /error/i);
    assert.match(spoof, /The From name looks like another domain/);
    assert.match(spoof, /paypal\.com/);
    assert.match(spoof, /Fix:/);
    assert.match(await finding('link-shortener').innerText(), /bit\.ly/);
    await shots.shot('email-insights', page);
  });

  browserTest("a 550 5.7.26 from the receiver is explained on the email's page", async () => {
    await page.goto(`${w.t.url}/dashboard/emails/${bouncedId}`);
    await finding('receiver-rejected').waitFor();
    const text = await finding('receiver-rejected').innerText();
    assert.match(text, /The receiver requires DMARC alignment/);
    assert.match(text, /550 5\.7\.26/);
    assert.match(text, /Publish a DMARC record \(_dmarc\.example\.com\) and sign with the From domain/);
    await shots.shot('email-bounce-explained', page);
  });

  browserTest('a clean email says nothing was found', async () => {
    await page.goto(`${w.t.url}/dashboard/emails/${cleanId}`);
    await page.getByTestId('insights').getByText('Nothing found').waitFor();
    assert.equal(await page.getByTestId('insights').locator('[data-finding]').count(), 0);
  });

  browserTest(
    'Metrics lists the most common findings of the last 7 days, with counts and an example email',
    async () => {
      await page.goto(`${w.t.url}/dashboard/metrics`);
      const top = page.getByTestId('top-insights');
      await top.getByRole('heading', { name: 'Most common insights, last 7 days' }).waitFor();
      const row = top.locator('[data-finding="link-shortener"]');
      await row.waitFor();
      assert.match(await row.getByTestId('finding-count').innerText(), /^2\b/);
      assert.match(await row.innerText(), /Links use a URL shortener/);
      assert.match(await top.innerText(), /Out of 4 emails analyzed/);
      const counts = (await top.getByTestId('finding-count').allInnerTexts()).map((c) => Number(c.split(' ')[0]));
      assert.deepEqual(
        counts,
        [...counts].sort((a, b) => b - a),
        'the most common first',
      );
      assert.equal(counts[0], 2);
      await shots.shot('metrics-top-insights', page);
      await row.getByRole('link', { name: 'Latest email' }).click();
      await page.getByTestId('insights').locator('[data-finding="link-shortener"]').waitFor();
      assert.match(page.url(), /\/dashboard\/emails\/[0-9a-f-]{36}$/);
    },
  );

  browserTest('on a phone the insights fit the screen', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      storageState: await page.context().storageState(),
    });
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${w.t.url}/dashboard/emails/${badId}`);
    await p.getByTestId('insights').locator('[data-finding="link-shortener"]').waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390));
    await shots.shot('phone-email-insights', p);
    await p.goto(`${w.t.url}/dashboard/metrics`);
    await p.getByTestId('top-insights').locator('[data-finding]').first().waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390));
    await shots.shot('phone-metrics-top-insights', p);
    await phone.close();
  });

  browserTest('no script errors on the way', async () => {
    assert.deepEqual(errors, []);
  });
});

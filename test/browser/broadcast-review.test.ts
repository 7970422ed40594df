// Issue 30, defects 1 and 2, in Chromium. A broadcast composed from a template takes the template's
// PUBLISHED version (not its unpublished draft) and says which version; a template beyond the
// first 100 is found by name. Nothing leaves without a review step: the audience after exclusions
// (unsubscribed, topic opt-out, suppressed; the same numbers from GET /broadcasts/:id/audience),
// from, subject, and a confirmation naming the count; the send box sits below the content.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import {
  browserSkip,
  browserTest,
  desktopPage,
  launchBrowser,
  PHONE,
  screenshots,
  setUpOwner,
} from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe('A broadcast from the published template, sent only after a review', { timeout: 300_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-broadcast-review');
  const ids = { template: '', segment: '', topic: '', broadcast: '' };

  before(async () => {
    if (browserSkip) return;
    t = await startTestApp({ deliveryMode: 'capture' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
    // Published as v1, then edited: v2 is a draft nobody approved.
    const tpl = await t.resend.templates.create({
      name: 'Monthly',
      from: 'News <news@example.com>',
      subject: 'Published subject',
      html: '<p>Published body</p><p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p>',
    });
    assert.equal(tpl.error, null, JSON.stringify(tpl.error));
    ids.template = tpl.data!.id;
    assert.equal((await t.api('POST', `/templates/${ids.template}/publish`)).status, 200);
    const edit = await t.api('PATCH', `/templates/${ids.template}`, {
      body: { subject: '(draft v2)', html: '<p>Draft body</p>' },
    });
    assert.equal(edit.status, 200, JSON.stringify(edit.body));
    // 105 newer templates: Monthly is not among the first 100 the list gives.
    for (let i = 0; i < 105; i++) {
      const r = await t.api('POST', '/templates', { body: { name: `Filler ${i}`, html: '<p>x</p>' } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    ids.segment = (await t.resend.segments.create({ name: 'Readers' })).data!.id;
    ids.topic = (await t.api('POST', '/topics', { body: { name: 'News', default_subscription: 'opt_in' } })).body.id;
    const people: [string, { unsubscribed?: boolean }][] = [
      ['ann@dest.test', {}],
      ['bob@dest.test', {}],
      ['una@dest.test', { unsubscribed: true }],
      ['tom@dest.test', {}], // opts out of the topic
      ['sue@dest.test', {}], // suppressed
    ];
    for (const [email, extra] of people) {
      const c = await t.resend.contacts.create({ email, ...extra, segments: [{ id: ids.segment }] } as never);
      assert.equal(c.error, null, JSON.stringify(c.error));
      if (email === 'tom@dest.test')
        assert.equal(
          (
            await t.resend.contacts.topics.update({
              id: c.data!.id,
              topics: [{ id: ids.topic, subscription: 'opt_out' }],
            })
          ).error,
          null,
        );
    }
    assert.equal((await t.api('POST', '/suppressions', { body: { email: 'sue@dest.test' } })).status, 201);
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

  browserTest('a template beyond the first 100 is found by name and composes from its published version', async () => {
    await page.goto(t.url + '/');
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('link', { name: 'Broadcasts' }).click();
    await page.getByRole('heading', { name: 'No broadcasts yet' }).waitFor();
    // Unsearched, the picker says there are more than it shows and offers them.
    await page.getByRole('button', { name: 'More templates' }).waitFor();
    await page.getByLabel('Find a template').fill('month');
    await page.getByTestId('template-count').filter({ hasText: '1 template matching "month"' }).waitFor();
    await page.getByLabel('Name').fill('November news');
    await page.getByLabel('Start with').selectOption({ label: 'Template: Monthly' });
    await page
      .getByTestId('template-version')
      .filter({ hasText: /published version #1 .*unpublished changes are not used/ })
      .waitFor();
    await page.waitForFunction(
      () => (document.getElementById('bc-subject') as HTMLInputElement | null)?.value === 'Published subject',
    );
    await page.getByLabel('Segment').selectOption({ label: 'Readers' });
    await page.getByLabel('Topic (only its subscribers receive it)').selectOption({ label: 'News' });
    await shots.shot('01-compose-from-published', page);
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { name: 'November news' }).waitFor();
    ids.broadcast = new URL(page.url()).pathname.split('/').pop()!;
    const saved = (await t.resend.broadcasts.get(ids.broadcast)).data!;
    assert.equal(saved.subject, 'Published subject');
    assert.match(saved.html ?? '', /Published body/);
    assert.doesNotMatch(saved.html ?? '', /Draft body/);
    assert.deepEqual(errors, []);
  });

  browserTest('the audience after exclusions is counted by the API', async () => {
    const a = await t.api('GET', `/broadcasts/${ids.broadcast}/audience`);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.deepEqual(
      { contacts: a.body.contacts, skipped: a.body.skipped, recipients: a.body.recipients, capped: a.body.capped },
      { contacts: 5, skipped: { unsubscribed: 1, topic: 1, suppressed: 1 }, recipients: 2, capped: false },
    );
  });

  browserTest('nothing leaves before a review that names the count; the send box is below the content', async () => {
    const content = await page.getByRole('heading', { name: 'Content' }).boundingBox();
    const sendBox = await page.getByTestId('send-box').boundingBox();
    assert.ok(content && sendBox && sendBox.y > content.y, 'the send box comes after the content');
    assert.equal(await page.getByRole('button', { name: /^Send now$/ }).count(), 0, 'no one-click send');
    await page.getByRole('button', { name: 'Review before sending' }).click();
    const review = page.getByTestId('review');
    await review.getByTestId('review-recipients').filter({ hasText: '2 recipients' }).waitFor();
    await review.getByText('1 unsubscribed, 1 opted out of the topic, 1 suppressed (of 5)').waitFor();
    await review.getByText('News <news@example.com>').waitFor();
    await review.getByText('Published subject').waitFor();
    await review.scrollIntoViewIfNeeded();
    await shots.shot('02-review', page, false);
    assert.equal((await t.resend.broadcasts.get(ids.broadcast)).data!.status, 'draft', 'the review sends nothing');

    // The review fits a 390 px phone.
    const phone = await browser.newContext({
      viewport: PHONE,
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(e.message));
    await p.goto(`${t.url}/dashboard/broadcasts/${ids.broadcast}`);
    await p.getByRole('button', { name: 'Review before sending' }).click();
    await p.getByTestId('review-recipients').filter({ hasText: '2 recipients' }).waitFor();
    assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390), 'no sideways scrolling');
    await p.getByTestId('review').scrollIntoViewIfNeeded();
    await shots.shot('03-review-phone', p, false);
    await phone.close();

    await page.getByRole('button', { name: 'Send to 2 recipients now' }).click();
    await page.locator('.page-head .badge', { hasText: /^(queued|sending|sent)$/ }).waitFor({ timeout: 20_000 });
    assert.notEqual((await t.resend.broadcasts.get(ids.broadcast)).data!.status, 'draft');
    assert.deepEqual(errors, []);
  });
});

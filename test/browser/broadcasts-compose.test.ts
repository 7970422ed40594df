// Composing a broadcast in Chromium: the owner starts from a published template (its variable
// filled once, its contact tags kept), previews it as a chosen contact (their first name in the
// rendered message, unsaved edits shown live), sends a test (read back through the API),
// schedules it a few seconds ahead, and watches it send by itself: live progress, metrics and the
// recipients table by event type. Then the template editor's live preview of unsaved html and
// text, and every one of these pages on a 390×844 phone without sideways scrolling.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { browserSkip, browserTest, desktopPage, launchBrowser, screenshots, setUpOwner } from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

const PHONE = { width: 390, height: 844 };

describe('Composing, previewing and sending a broadcast in a browser', { timeout: 400_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-broadcasts-compose');
  const ids = { template: '', broadcast: '', ann: '' };

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startTestApp({ deliveryMode: 'capture' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
    const seg = (await t.resend.segments.create({ name: 'Readers' })).data!.id;
    for (const [email, firstName] of [
      ['ann@dest.test', 'Annabel'],
      ['bob@dest.test', 'Bobby'],
    ]) {
      const c = await t.resend.contacts.create({ email, firstName, segments: [{ id: seg }] } as never);
      assert.equal(c.error, null, JSON.stringify(c.error));
      if (email === 'ann@dest.test') ids.ann = c.data!.id;
    }
    const tpl = await t.resend.templates.create({
      name: 'Monthly',
      from: 'News <news@example.com>',
      subject: 'Your {{{MONTH}}} news, {{{contact.first_name|friend}}}',
      html: '<h1>Hello {{{contact.first_name|there}}}</h1><p>{{{MONTH}}} highlights</p><p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p>',
      variables: [{ key: 'MONTH', type: 'string', fallbackValue: 'This month' }],
    });
    assert.equal(tpl.error, null, JSON.stringify(tpl.error));
    ids.template = tpl.data!.id;
    assert.equal((await t.api('POST', `/templates/${ids.template}/publish`)).status, 200);
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

  const previewFrame = (to: string) => page.frameLocator(`iframe[title="Preview of November news for ${to}"]`);

  browserTest('the owner composes a broadcast from a template and previews it as a contact', async () => {
    await page.goto(t.url + '/');
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('link', { name: 'Broadcasts' }).click();
    await page.getByRole('heading', { name: 'No broadcasts yet' }).waitFor();
    await page.getByLabel('Name').fill('November news');
    await page.getByLabel('Start with').selectOption({ label: 'Template: Monthly' });
    await page.getByLabel('MONTH').fill('Nov');
    await page.waitForFunction(
      () =>
        (document.getElementById('bc-subject') as HTMLInputElement | null)?.value ===
        'Your Nov news, {{{contact.first_name|friend}}}',
    );
    await page.getByLabel('MONTH').fill('November'); // a new value refills the subject the author has not edited
    // The template's From and Subject come along, its variable filled, its contact tag kept.
    await page.waitForFunction(
      () =>
        (document.getElementById('bc-subject') as HTMLInputElement | null)?.value ===
        'Your November news, {{{contact.first_name|friend}}}',
    );
    assert.equal(await page.getByLabel('From').inputValue(), 'News <news@example.com>');
    await page.getByLabel('Segment').selectOption({ label: 'Readers' });
    await shots.shot('01-compose-from-template', page);
    await page.getByRole('button', { name: 'Create draft' }).click();
    await page.getByRole('heading', { name: 'November news' }).waitFor();
    ids.broadcast = new URL(page.url()).pathname.split('/').pop()!;
    const saved = (await t.resend.broadcasts.get(ids.broadcast)).data!;
    assert.equal(
      saved.html,
      '<h1>Hello {{{contact.first_name|there}}}</h1><p>November highlights</p><p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a></p>',
    );

    // The first contact of the segment is previewed at once; choosing Annabel shows her name.
    await page.getByLabel("Contact's email (personalized with their data)").fill('ann@dest.test');
    await previewFrame('ann@dest.test').locator('h1', { hasText: 'Hello Annabel' }).waitFor();
    await page.getByTestId('preview-as-subject').filter({ hasText: 'Your November news, Annabel' }).waitFor();
    await page.getByTestId('preview-as').getByText('To: ann@dest.test (Annabel)').waitFor();
    // An unsaved edit shows in the preview before it is saved.
    await page.getByLabel('subject', { exact: true }).fill('{{{contact.first_name}}}, November is here');
    await page.getByTestId('preview-as-subject').filter({ hasText: 'Annabel, November is here' }).waitFor();
    assert.equal(
      (await t.resend.broadcasts.get(ids.broadcast)).data!.subject,
      'Your November news, {{{contact.first_name|friend}}}',
    );
    await page.getByRole('button', { name: 'Save draft' }).click();
    await until(
      'the subject saved',
      async () =>
        (await t.resend.broadcasts.get(ids.broadcast)).data!.subject === '{{{contact.first_name}}}, November is here',
    );
    await page.getByTestId('preview-as').scrollIntoViewIfNeeded();
    await shots.shot('02-preview-as-contact', page, false);
    assert.deepEqual(errors, []);
  });

  browserTest('a test send reaches the address, personalized as its contact, and is not counted', async () => {
    await page.getByLabel('To (comma separated, up to 50)').fill('ann@dest.test');
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByText('Test sent to ann@dest.test.').waitFor();
    const list = await t.api('GET', '/emails?limit=10');
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const sent = (list.body.data as { id: string; to: string[]; subject: string }[]).filter(
      (e) => e.to[0] === 'ann@dest.test',
    );
    assert.equal(sent.length, 1);
    assert.equal(sent[0].subject, 'Annabel, November is here');
    const email = await t.api('GET', `/emails/${sent[0].id}`);
    assert.match(email.body.html, /<h1>Hello Annabel<\/h1><p>November highlights<\/p>/);
    assert.equal(
      ((await t.api('GET', `/emails?broadcast_id=${ids.broadcast}`)).body.data as unknown[]).length,
      0,
      'a test is not the broadcast',
    );
  });

  browserTest(
    'scheduled a few seconds ahead, it sends by itself; progress, metrics and recipients follow live',
    async () => {
      await page.getByLabel('When (empty: now; or "tomorrow at 9am", an ISO date)').fill('in 15 seconds');
      await page.getByRole('button', { name: 'Review before sending' }).click();
      await page.getByRole('button', { name: 'Schedule for 2 recipients' }).click();
      await page.locator('.page-head .badge', { hasText: 'scheduled' }).waitFor();
      assert.equal((await t.resend.broadcasts.get(ids.broadcast)).data!.status, 'scheduled');
      assert.ok((await t.resend.broadcasts.get(ids.broadcast)).data!.scheduled_at);
      await page.getByTestId('recipients-empty').waitFor();
      await shots.shot('03-scheduled', page);

      // No reload: the page follows the broadcast until every recipient has it.
      await page.locator('.page-head .badge', { hasText: /^sent$/ }).waitFor({ timeout: 90_000 });
      await page.waitForFunction(
        () => /Delivered\s*2/.test(document.querySelector('[data-testid="metrics"]')?.textContent ?? ''),
        undefined,
        { timeout: 30_000 },
      );
      const rows = page.getByTestId('recipients').locator('tbody tr');
      await until('two recipient rows', async () => (await rows.count()) === 2, 30_000);
      assert.deepEqual((await rows.locator('td:first-child').allInnerTexts()).sort(), [
        'ann@dest.test',
        'bob@dest.test',
      ]);
      await page.getByLabel('Which recipients').selectOption('delivered');
      await until(
        'two delivered rows',
        async () => (await rows.count()) === 2 && !(await page.getByTestId('recipients-empty').count()),
        20_000,
      );
      await page.getByLabel('Which recipients').selectOption('opened');
      await page.getByTestId('recipients-empty').filter({ hasText: 'No recipients opened yet' }).waitFor();
      await page.getByLabel('Which recipients').selectOption('sent');
      await page.getByLabel('Find an address').fill('bob@dest.test');
      await page.getByRole('button', { name: 'Find' }).click();
      await until(
        'only bob',
        async () => (await rows.count()) === 1 && (await rows.first().innerText()).includes('bob@dest.test'),
        20_000,
      );
      await shots.shot('04-sent-metrics-recipients', page);

      // The page's numbers are the API's.
      const api = (await t.api('GET', `/broadcasts/${ids.broadcast}/recipients?type=delivered`)).body.data as {
        email: string;
      }[];
      assert.deepEqual(api.map((r) => r.email).sort(), ['ann@dest.test', 'bob@dest.test']);
      const b = (await t.api('GET', `/broadcasts/${ids.broadcast}`)).body;
      assert.deepEqual([b.status, b.stats.recipients, b.stats.delivered], ['sent', 2, 2]);
      const mail = (await t.api('GET', `/emails?broadcast_id=${ids.broadcast}`)).body.data as {
        to: string[];
        subject: string;
      }[];
      assert.deepEqual(mail.map((e) => `${e.to[0]}: ${e.subject}`).sort(), [
        'ann@dest.test: Annabel, November is here',
        'bob@dest.test: Bobby, November is here',
      ]);
      assert.deepEqual(errors, []);
    },
  );

  browserTest('the template editor previews unsaved html and text live, and loads an old version back', async () => {
    await page.goto(`${t.url}/dashboard/templates/${ids.template}`);
    await page.getByRole('heading', { name: 'Monthly', exact: true }).waitFor();
    const frame = page.frameLocator('iframe[title="Preview of Monthly"]');
    await frame.locator('p', { hasText: 'This month highlights' }).waitFor();
    await page.getByLabel('HTML', { exact: true }).fill('<h1>Big {{{MONTH}}} sale</h1>');
    await frame.locator('h1', { hasText: 'Big This month sale' }).waitFor();
    await page.getByRole('heading', { name: 'Preview (unsaved changes)' }).waitFor();
    await page
      .getByTestId('preview-text')
      .filter({ hasText: /Big This month sale/i })
      .waitFor(); // derived from the html
    await page.getByLabel('Plain text (generated from the HTML when empty)').fill('Sale: {{{MONTH}}}');
    await page.getByTestId('preview-text').filter({ hasText: 'Sale: This month' }).waitFor();
    await page.locator('#sample-MONTH').fill('May');
    await page.getByTestId('preview-text').filter({ hasText: 'Sale: May' }).waitFor();
    await frame.locator('h1', { hasText: 'Big May sale' }).waitFor();
    assert.equal((await t.resend.templates.get(ids.template)).data!.html.includes('Big'), false, 'nothing saved');
    await shots.shot('05-template-live-preview', page);
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.locator('.page-head .badge', { hasText: 'unpublished changes' }).waitFor();
    await page.getByTestId('versions').locator('tbody tr').nth(1).waitFor();
    await page.getByRole('button', { name: 'Load #1 into the editor' }).click();
    assert.match(
      await page.getByLabel('HTML', { exact: true }).inputValue(),
      /^<h1>Hello \{\{\{contact\.first_name\|there\}\}\}<\/h1>/,
    );
    await frame.locator('h1', { hasText: 'Hello there' }).waitFor();
    assert.deepEqual(errors, []);
  });

  browserTest('the templates and broadcasts pages fit a 390 px phone', async () => {
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
    const wide: string[] = [];
    for (const p of ['/templates', `/templates/${ids.template}`, '/broadcasts', `/broadcasts/${ids.broadcast}`]) {
      await phone.goto(`${t.url}/dashboard${p}`);
      await phone.locator('main h1').first().waitFor();
      await phone.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 15_000 });
      const m = await phone.evaluate(() => ({
        doc: document.documentElement.scrollWidth,
        body: document.body.scrollWidth,
      }));
      if (m.doc > PHONE.width || m.body > PHONE.width) wide.push(`${p}: ${m.doc} px`);
      await shots.shot(`phone${p.replace(/\//g, '-').replace(/-[0-9a-f-]{36}$/, '-detail')}`, phone);
    }
    await ctx.close();
    assert.deepEqual(wide, [], 'pages wider than 390 px');
    assert.deepEqual(errors, []);
  });
});

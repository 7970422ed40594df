// Issue 30's visual email editor in Chromium, at 1440 px and on a 390 px phone: a template designed
// block by block (heading, rich text with a contact tag from the Personalize menu, button, image,
// two columns, footer with the unsubscribe link), its desktop, phone and dark previews, published;
// a broadcast composed from it to a segment, a block changed in the editor, the review step and the
// send. The delivered emails (capture mode: the messages the API keeps) are the server's rendering:
// tables with inline styles, each contact's first name (the fallback for one without), their own
// unsubscribe link. Nothing overflows the phone's width; no script or console errors.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { browserSkip, browserTest, launchBrowser, PHONE, screenshots, setUpOwner } from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

const DESKTOP = { width: 1440, height: 900 };
const PEOPLE: [string, string | null][] = [
  ['ann@dest.test', 'Annabel'],
  ['bob@dest.test', 'Bobby'],
  ['cy@dest.test', null],
];

describe('The visual email editor, from a template to delivered broadcast emails', { timeout: 600_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let desktop: BrowserContext;
  const errors: string[] = [];
  const shots = screenshots('mailroom-email-editor');

  const watch = (p: Page) => {
    p.on('pageerror', (e) => errors.push(e.message));
    // The previews block remote images on purpose (their CSP says so in the console).
    p.on('console', (m) => {
      if (m.type() === 'error' && !/Content Security Policy/i.test(m.text())) errors.push(m.text());
    });
  };
  const wide = async (p: Page, where: string) => {
    const w = await p.evaluate(() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth));
    const vw = p.viewportSize()!.width;
    assert.ok(w <= vw, `${where}: the page is ${w} px wide on a ${vw} px screen`);
  };

  before(async () => {
    if (browserSkip) return;
    t = await startTestApp({ deliveryMode: 'capture' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
    const seg = (await t.resend.segments.create({ name: 'Readers' })).data!.id;
    for (const [email, firstName] of PEOPLE) {
      const c = await t.resend.contacts.create({
        email,
        ...(firstName ? { firstName } : {}),
        segments: [{ id: seg }],
      } as never);
      assert.equal(c.error, null, JSON.stringify(c.error));
    }
    const prop = await t.api('POST', '/contact-properties', { body: { key: 'company', type: 'string' } });
    assert.equal(prop.status, 201, JSON.stringify(prop.body));
    browser = await launchBrowser();
    desktop = await browser.newContext({ viewport: DESKTOP, colorScheme: 'light' });
    desktop.setDefaultTimeout(15_000);
    const page = await desktop.newPage();
    watch(page);
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

  /** A new page at the width: the desktop context, or a touch phone signed in as the same owner. */
  async function pageAt(size: 'desktop' | 'phone'): Promise<Page> {
    const ctx =
      size === 'desktop'
        ? desktop
        : await browser.newContext({
            viewport: PHONE,
            colorScheme: 'light',
            isMobile: true,
            hasTouch: true,
            storageState: await desktop.storageState(),
          });
    ctx.setDefaultTimeout(15_000);
    const p = await ctx.newPage();
    watch(p);
    return p;
  }

  /** Types into a rich text box (its content replaced). */
  async function typeRich(p: Page, id: string, text: string) {
    await p.locator(`#${id}`).click();
    await p.keyboard.press('ControlOrMeta+A');
    await p.keyboard.type(text);
  }

  async function addBlock(p: Page, where: string, kind: string, button = 'Add block') {
    await p.locator(`#add-${where}`).selectOption({ label: kind });
    await p.locator(`#add-${where}`).locator('xpath=..').getByRole('button', { name: button }).click();
  }

  async function designTemplate(p: Page, name: string, size: string): Promise<string> {
    await p.goto(`${t.url}/dashboard/templates`);
    await p.getByLabel('Template name').fill(name);
    await p.getByRole('button', { name: 'New visual template' }).click();
    await p.getByRole('heading', { name, exact: true }).waitFor();
    const id = new URL(p.url()).pathname.split('/').pop()!;
    const editor = p.getByTestId('email-editor');
    await editor.waitFor();
    await wide(p, `${size}: the template editor`);
    await p.getByLabel('From', { exact: true }).fill('News <news@example.com>');
    await p.getByLabel('Subject', { exact: true }).fill('News for {{{contact.first_name|you}}}');
    // The starter: heading, text, footer.
    assert.deepEqual(
      await editor.locator('[data-testid=block]').evaluateAll((b) => b.map((x) => x.getAttribute('data-type'))),
      ['heading', 'text', 'footer'],
    );
    await p.locator('#blk-top-0-text').fill(`${name}: the headline`);
    // The contact's first name through the Personalize menu, at the caret.
    await typeRich(p, 'blk-top-1-html', 'Dear ');
    await editor.locator('summary', { hasText: 'Personalize' }).click();
    const tags = p.getByRole('group', { name: 'Personalization tags' });
    await tags.getByRole('button', { name: 'company' }).waitFor(); // the team's own property is offered
    await wide(p, `${size}: the Personalize menu`);
    await p.getByLabel('Fallback (when the contact has no value)').fill('there');
    await tags.getByRole('button', { name: 'First name' }).click();
    await p.keyboard.type(', welcome.');
    assert.equal(
      (await p.locator('#blk-top-1-html').innerText()).replace(/\u00a0/g, ' '), // typed spaces may be no-break ones
      'Dear {{{contact.first_name|there}}}, welcome.',
    );
    // A button, an image, two columns of text (the left one bold).
    await addBlock(p, 'top', 'Button');
    await p.locator('#blk-top-3-text').fill('Read the news');
    await p.locator('#blk-top-3-href').fill('https://example.com/news');
    await addBlock(p, 'top', 'Image');
    await p.locator('#blk-top-4-src').fill('https://example.com/banner.png');
    await p.locator('#blk-top-4-alt').fill('Our banner');
    await addBlock(p, 'top', 'Columns');
    await addBlock(p, 'top-5-c0', 'Text', 'Add to column');
    await typeRich(p, 'blk-top-5-c0-0-html', 'Left column');
    await p.keyboard.press('ControlOrMeta+A');
    await p.locator('#blk-top-5-c0-0-html').locator('xpath=..').getByRole('button', { name: 'Bold' }).click();
    await addBlock(p, 'top-5-c1', 'Text', 'Add to column');
    await typeRich(p, 'blk-top-5-c1-0-html', 'Right column');
    // The footer (with its unsubscribe link) moved down to the end.
    const footer = editor.locator('[data-testid=block][data-type=footer]');
    const down = footer.getByRole('button', { name: /^Move Footer \d+ down$/ });
    while (await down.isEnabled()) await down.click();
    assert.equal(await footer.getByLabel(/Unsubscribe link/).isChecked(), true);
    assert.deepEqual(
      await editor
        .locator('ol.block-list')
        .first()
        .evaluate((ol) => [...ol.children].map((li) => li.getAttribute('data-type'))),
      ['heading', 'text', 'button', 'image', 'columns', 'footer'],
    );
    await wide(p, `${size}: the editor with every block`);

    // Previews: desktop (600+ px), phone (375 px), dark.
    const frame = (mode: string) => p.locator(`iframe[data-mode=${mode}]`);
    const inFrame = (mode: string) => p.frameLocator(`iframe[data-mode=${mode}]`);
    await inFrame('desktop').getByText(`${name}: the headline`).waitFor();
    await inFrame('desktop').getByText('Right column').waitFor();
    assert.ok((await frame('desktop').evaluate((f) => f.getBoundingClientRect().width)) >= 600);
    await frame('desktop').scrollIntoViewIfNeeded();
    await shots.shot(`${size}-01-desktop-preview`, p, false);
    await p.getByRole('group', { name: 'Preview as' }).getByRole('button', { name: 'Phone' }).click();
    await inFrame('phone').getByText('Left column').waitFor();
    assert.equal(await frame('phone').evaluate((f) => f.getBoundingClientRect().width), 375);
    // The columns stack on a phone: the right one is below the left one.
    const left = await inFrame('phone').getByText('Left column').boundingBox();
    const right = await inFrame('phone').getByText('Right column').boundingBox();
    assert.ok(left && right && right.y > left.y + left.height - 1, 'columns stack at 375 px');
    await wide(p, `${size}: the phone preview`);
    await shots.shot(`${size}-02-phone-preview`, p, false);
    await p.getByRole('group', { name: 'Preview as' }).getByRole('button', { name: 'Dark' }).click();
    await inFrame('dark').getByText('Right column').waitFor();
    // (no named functions inside evaluate: the test's transpiler would wrap them in a helper the page lacks)
    const dark = await inFrame('dark')
      .locator('body')
      .evaluate((b) => {
        const w = document.createTreeWalker(b, NodeFilter.SHOW_TEXT);
        while (w.nextNode() && !w.currentNode.textContent?.startsWith('Dear'));
        const cell = w.currentNode.parentElement; // the paragraph holding the text
        let bg = 'rgba(0, 0, 0, 0)';
        for (let e: Element | null = cell ?? null; e && /rgba\(0, 0, 0, 0\)|transparent/.test(bg); e = e.parentElement)
          bg = getComputedStyle(e).backgroundColor;
        return { cls: b.className, bg, text: cell ? getComputedStyle(cell).color : '' };
      });
    const lum = (c: string) =>
      (c.match(/\d+/g) ?? [])
        .slice(0, 3)
        .map(Number)
        .reduce((a, x) => a + x, 0) / 3;
    assert.match(dark.cls, /\bmr-dark\b/);
    assert.ok(lum(dark.bg) < 80 && lum(dark.text) > 150, `dark colours in the dark preview: ${JSON.stringify(dark)}`);
    await shots.shot(`${size}-03-dark-preview`, p, false);

    await p.getByRole('button', { name: 'Save draft' }).click();
    await until('the document saved', async () => {
      const tpl = (await t.api('GET', `/templates/${id}`)).body;
      return tpl.document?.blocks?.length === 6 && /<table/.test(tpl.html);
    });
    await p.getByRole('button', { name: 'Publish' }).click();
    await p.locator('.page-head .badge', { hasText: /^published$/ }).waitFor();
    await shots.shot(`${size}-04-template`, p);
    return id;
  }

  async function composeAndSend(p: Page, name: string, template: string, size: string): Promise<string> {
    await p.goto(`${t.url}/dashboard/broadcasts`);
    await p.getByLabel('Name').fill(name);
    await p.getByLabel('Find a template').fill(template);
    await p
      .getByTestId('template-count')
      .filter({ hasText: `1 template matching "${template}"` })
      .waitFor();
    await p.getByLabel('Start with').selectOption({ label: `Template: ${template}` });
    await p.getByTestId('template-version').waitFor();
    const editor = p.getByTestId('email-editor');
    await editor.waitFor();
    await p.getByLabel('Segment').selectOption({ label: 'Readers' });
    await p.waitForFunction(() => (document.getElementById('bc-from') as HTMLInputElement | null)?.value !== '');
    // A block changed before the broadcast is saved: the button's text.
    await p.locator('#blk-top-2-text').fill('Read it all');
    await p.frameLocator('iframe[data-mode=desktop]').getByText('Read it all').waitFor();
    await wide(p, `${size}: composing`);
    await shots.shot(`${size}-05-compose`, p);
    await p.getByRole('button', { name: 'Create draft' }).click();
    await p.getByRole('heading', { name, exact: true }).waitFor();
    const id = new URL(p.url()).pathname.split('/').pop()!;
    let b = (await t.api('GET', `/broadcasts/${id}`)).body;
    assert.equal(b.document.blocks[2].text, 'Read it all');
    // And another change on the draft's page: the heading.
    await p.getByTestId('email-editor').waitFor();
    await p.locator('#blk-top-0-text').fill(`${name}: changed headline`);
    await p.frameLocator('iframe[data-mode=desktop]').getByText(`${name}: changed headline`).waitFor();
    await p.getByRole('button', { name: 'Save draft' }).click();
    await until('the change saved', async () => {
      b = (await t.api('GET', `/broadcasts/${id}`)).body;
      return b.document.blocks[0].text === `${name}: changed headline` && b.html.includes('changed headline');
    });
    await wide(p, `${size}: the draft`);
    await p.getByRole('button', { name: 'Review before sending' }).click();
    await p.getByTestId('review-recipients').filter({ hasText: '3 recipients' }).waitFor();
    await wide(p, `${size}: the review`);
    await p.getByTestId('review').scrollIntoViewIfNeeded();
    await shots.shot(`${size}-06-review`, p, false);
    await p.getByRole('button', { name: 'Send to 3 recipients now' }).click();
    await p.locator('.page-head .badge', { hasText: /^(queued|sending|sent)$/ }).waitFor({ timeout: 20_000 });
    return id;
  }

  async function assertDelivered(broadcast: string, headline: string) {
    let mail: { id: string; to: string[]; subject: string }[] = [];
    await until(
      'three emails',
      async () => {
        mail = (await t.api('GET', `/emails?broadcast_id=${broadcast}`)).body.data;
        return mail.length === 3;
      },
      60_000,
    );
    for (const [email, first] of PEOPLE) {
      const m = mail.find((x) => x.to[0] === email);
      assert.ok(m, `an email to ${email}`);
      assert.equal(m.subject, `News for ${first ?? 'you'}`);
      const html: string = (await t.api('GET', `/emails/${m.id}`)).body.html;
      assert.match(html, /<table[^>]*role="presentation"/, 'the layout is tables');
      assert.ok((html.match(/<td[^>]*style="[^"]+"/g) ?? []).length >= 5, 'cells with inline styles');
      assert.ok(html.includes(headline), 'the changed heading');
      assert.match(
        html,
        new RegExp(`Dear ${first ?? 'there'}, welcome\\.`),
        `${email}: the first name, or the fallback`,
      );
      assert.match(html, /<a [^>]*href="https:\/\/example\.com\/news"[^>]*style="[^"]+"[^>]*>\s*Read it all\s*</);
      const img = (html.match(/<img [^>]*>/g) ?? []).find((x) => x.includes('src="https://example.com/banner.png"'));
      assert.ok(img?.includes('alt="Our banner"'), `the image with its alt text: ${img}`);
      assert.match(html, /<strong>Left column<\/strong>/);
      assert.match(html, /Right column/);
      const unsub = /<a [^>]*href="(https?:\/\/[^"]+)"[^>]*>\s*Unsubscribe\s*<\/a>/.exec(html);
      assert.ok(unsub, `${email}: an unsubscribe link`);
      assert.doesNotMatch(unsub[1], /\{\{\{/);
      assert.doesNotMatch(html, /\{\{\{/, 'every tag filled');
    }
    const links = await Promise.all(
      mail.map(
        async (m) =>
          /href="(https?:\/\/[^"]+)"[^>]*>\s*Unsubscribe/.exec((await t.api('GET', `/emails/${m.id}`)).body.html)![1],
      ),
    );
    assert.equal(new Set(links).size, 3, "each recipient's own unsubscribe link");
  }

  for (const size of ['desktop', 'phone'] as const) {
    browserTest(
      `${size === 'desktop' ? '1440' : '390'} px: design, publish, compose, change, review, send`,
      async () => {
        const p = await pageAt(size);
        const template = `Visual ${size}`;
        await designTemplate(p, template, size);
        const broadcast = await composeAndSend(p, `Broadcast ${size}`, template, size);
        await assertDelivered(broadcast, `Broadcast ${size}: changed headline`);
        if (size === 'phone') await p.context().close();
        assert.deepEqual(errors, []);
      },
    );
  }

  browserTest(
    'a template with html and no document opens in raw HTML mode; leaving the editor asks first',
    async () => {
      const p = await pageAt('desktop');
      const r = await t.api('POST', '/templates', { body: { name: 'Raw one', html: '<p>Raw body</p>' } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      await p.goto(`${t.url}/dashboard/templates/${r.body.id}`);
      await p.getByLabel('HTML', { exact: true }).waitFor();
      assert.equal(await p.getByLabel('HTML', { exact: true }).inputValue(), '<p>Raw body</p>');
      assert.equal(await p.getByTestId('email-editor').count(), 0);
      // Into the visual editor (a confirmation: the html is replaced), then back out to raw HTML.
      const asked: string[] = [];
      const answers: boolean[] = [];
      p.on('dialog', async (d) => {
        asked.push(d.message());
        await (answers.shift() ? d.accept() : d.dismiss());
      });
      answers.push(true);
      await p.getByRole('button', { name: 'Use the visual editor' }).click();
      // The editor's chunk loads on this first use and the preview waits for the render worker's
      // cold start (MJML loaded in a thread): under CI load that took more than 15 s once.
      await p.getByTestId('email-editor').waitFor({ timeout: 45_000 });
      await p.frameLocator('iframe[data-mode=desktop]').getByText('Hello', { exact: true }).waitFor();
      assert.match(asked[0], /the HTML is replaced/);
      answers.push(false);
      await p.getByRole('button', { name: 'Edit as raw HTML' }).click();
      await until('the question', async () => asked.length === 2);
      assert.match(asked[1], /leaves the visual editor/);
      assert.equal(await p.getByTestId('email-editor').count(), 1, 'dismissed: still in the editor');
      answers.push(true);
      await p.getByRole('button', { name: 'Edit as raw HTML' }).click();
      await p.getByLabel('HTML', { exact: true }).waitFor();
      assert.match(await p.getByLabel('HTML', { exact: true }).inputValue(), /<table/);
      await p.getByRole('button', { name: 'Save draft' }).click();
      await until('saved as raw HTML', async () => {
        const tpl = (await t.api('GET', `/templates/${r.body.id}`)).body;
        return tpl.document === null && /<table/.test(tpl.html);
      });
      assert.deepEqual(errors, []);
    },
  );

  browserTest('rich text: italic, a link and a list, kept by the server as written', async () => {
    const p = await pageAt('desktop');
    const doc = {
      version: 1,
      settings: {},
      blocks: [{ type: 'text', id: 't1', html: '<p>First line</p><p>Second line</p>' }],
    };
    const r = await t.api('POST', '/templates', { body: { name: 'Rich one', document: doc } });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    await p.goto(`${t.url}/dashboard/templates/${r.body.id}`);
    const box = p.locator('#blk-top-0-html');
    const tool = (name: string) => box.locator('xpath=..').getByRole('button', { name, exact: true });
    await box.click();
    await p.keyboard.press('ControlOrMeta+A'); // both paragraphs: each gets its own <em>
    await tool('Italic').click();
    await tool('Link').click();
    await p.getByLabel('Link address').fill('https://example.com/more');
    await p.getByRole('button', { name: 'Apply link' }).click();
    await box.locator('p').first().click();
    await tool('Bulleted list').click();
    assert.equal(
      await box.innerHTML(),
      '<ul><li><a href="https://example.com/more"><em>First line</em></a></li></ul><p><a href="https://example.com/more"><em>Second line</em></a></p>',
    );
    const frame = p.frameLocator('iframe[data-mode=desktop]');
    await frame.locator('ul li a[href="https://example.com/more"] em', { hasText: 'First line' }).waitFor();
    await p.getByRole('button', { name: 'Save draft' }).click();
    await until('saved', async () => {
      const tpl = (await t.api('GET', `/templates/${r.body.id}`)).body;
      return /<ul><li><a href="https:\/\/example\.com\/more"><em>First line<\/em><\/a><\/li><\/ul>/.test(
        tpl.document?.blocks?.[0]?.html ?? '',
      );
    });
    assert.deepEqual(errors, []);
  });

  browserTest('a blank broadcast designed in the editor is saved as a document', async () => {
    const p = await pageAt('desktop');
    await p.goto(`${t.url}/dashboard/broadcasts`);
    await p.getByLabel('Name').fill('Blank design');
    await p.getByRole('button', { name: 'Design it in the visual editor' }).click();
    await p.getByTestId('email-editor').waitFor();
    await p.locator('#blk-top-0-text').fill('From nothing');
    await p.frameLocator('iframe[data-mode=desktop]').getByText('From nothing').waitFor();
    await p.getByLabel('Segment').selectOption({ label: 'Readers' });
    await p.getByLabel('From', { exact: true }).fill('News <news@example.com>');
    await p.getByLabel('Subject', { exact: true }).fill('Blank for ');
    // Personalize reaches the page's own fields too: the subject, at its caret.
    await p.getByTestId('email-editor').locator('summary', { hasText: 'Personalize' }).click();
    await p.getByLabel('Fallback (when the contact has no value)').fill('you');
    await p.getByRole('group', { name: 'Personalization tags' }).getByRole('button', { name: 'First name' }).click();
    assert.equal(await p.getByLabel('Subject', { exact: true }).inputValue(), 'Blank for {{{contact.first_name|you}}}');
    await p.getByRole('button', { name: 'Create draft' }).click();
    await p.getByRole('heading', { name: 'Blank design', exact: true }).waitFor();
    const id = new URL(p.url()).pathname.split('/').pop()!;
    const b = (await t.api('GET', `/broadcasts/${id}`)).body;
    assert.equal(b.document.blocks[0].text, 'From nothing');
    assert.equal(b.subject, 'Blank for {{{contact.first_name|you}}}');
    assert.match(b.html, /From nothing/);
    await p.getByTestId('email-editor').waitFor(); // the draft opens in the editor
    assert.deepEqual(errors, []);
  });
});

// The audience pages in Chromium: segments created, renamed and deleted; membership changed from a
// segment's page (by address, creating a missing contact on request) and from a contact's page;
// topics created with a fixed default, edited and deleted; a contact's topic switch changing what
// the API answers; a member seeing all of it without the controls; every page fitting a 390 px phone.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { systemMailTo } from '../helpers/dashboard-client.js';
import {
  browserSkip,
  browserTest,
  desktopPage,
  launchBrowser,
  screenshots,
  setUpOwner,
  joinThroughInvite,
} from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';

describe("Segments, Topics and a contact's page in a browser", { timeout: 150_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-audiences');
  const shot = (name: string, p: Page = page, fullPage = true) => shots.shot(name, p, fullPage);
  const ids: Record<string, string> = {};
  const segmentRow = (name: string) => page.getByTestId('segments').locator('tbody tr', { hasText: name });
  const topicRow = (name: string) => page.getByTestId('topics').locator('tbody tr', { hasText: name });
  const memberEmails = async (segmentId: string) =>
    ((await t.api('GET', `/segments/${segmentId}/contacts`)).body.data as { email: string }[])
      .map((c) => c.email)
      .sort();
  const contactTopics = async (contactId: string) =>
    Object.fromEntries(
      (
        (await t.api('GET', `/contacts/${contactId}/topics`)).body.data as {
          name: string;
          subscription: string;
          chosen: boolean;
        }[]
      ).map((x) => [x.name, [x.subscription, x.chosen]]),
    );

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>' }); // invite sign-ups confirm by email
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id); // the sender of system mail
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
    for (const [email, first_name] of [
      ['ada@example.com', 'Ada'],
      ['grace@example.com', 'Grace'],
    ]) {
      const r = await t.api('POST', '/contacts', { body: { email, first_name } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids[email] = r.body.id;
    }
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest('the owner creates a segment and renames it from the list', async () => {
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('link', { name: 'Segments' }).click();
    await page.getByRole('heading', { name: 'No segments yet' }).waitFor();
    await shot('segments-empty');
    const form = page.getByRole('form', { name: 'Create a segment' });
    await form.getByLabel('Name').fill('Newsletter readers');
    await form.getByRole('button', { name: 'Create segment' }).click();
    await segmentRow('Newsletter readers').waitFor();
    const listed = (await t.api('GET', '/segments')).body.data as { id: string; name: string }[];
    assert.deepEqual(
      listed.map((s) => s.name),
      ['Newsletter readers'],
    );
    ids.segment = listed[0].id;

    await segmentRow('Newsletter readers').getByRole('button', { name: 'Rename Newsletter readers' }).click();
    const rename = page.getByRole('form', { name: 'Rename Newsletter readers' });
    await rename.getByLabel('Name').fill('Weekly readers');
    await rename.getByRole('button', { name: 'Save' }).click();
    await segmentRow('Weekly readers').waitFor();
    assert.equal((await t.api('GET', `/segments/${ids.segment}`)).body.name, 'Weekly readers');
    await shot('segments-list');
  });

  browserTest(
    "on a segment's page the owner adds a contact by address, creates a missing one on request, and removes one",
    async () => {
      await segmentRow('Weekly readers').getByRole('link', { name: 'Weekly readers' }).click();
      await page.getByRole('heading', { name: 'Weekly readers' }).waitFor();
      await page.getByText('No contacts in this segment yet.').waitFor();
      const form = page.getByRole('form', { name: 'Add a contact to this segment' });
      const members = page.getByTestId('segment-members');
      await form.getByLabel("Contact's email").fill('ada@example.com');
      await form.getByRole('button', { name: 'Add to segment' }).click();
      await members.locator('tbody tr', { hasText: 'ada@example.com' }).waitFor();
      assert.deepEqual(await memberEmails(ids.segment), ['ada@example.com']);

      await form.getByLabel("Contact's email").fill('new@example.com');
      await form.getByRole('button', { name: 'Add to segment' }).click();
      await page.getByText('No contact has the address new@example.com.').waitFor();
      assert.equal(
        (await t.api('GET', '/contacts/new@example.com')).status,
        404,
        'nothing is created before the owner asks',
      );
      await shot('segment-missing-contact');
      await page.getByRole('button', { name: 'Create the contact and add it' }).click();
      await members.locator('tbody tr', { hasText: 'new@example.com' }).waitFor();
      assert.deepEqual(await memberEmails(ids.segment), ['ada@example.com', 'new@example.com']);
      assert.match(
        await members.locator('tbody tr', { hasText: 'ada@example.com' }).innerText(),
        /ada@example\.com\s+Ada\s+Subscribed/,
      );
      await shot('segment-detail');

      await members.getByRole('button', { name: 'Remove new@example.com from the segment' }).click();
      await members.locator('tbody tr', { hasText: 'new@example.com' }).waitFor({ state: 'detached' });
      assert.deepEqual(await memberEmails(ids.segment), ['ada@example.com']);
      assert.equal(
        (await t.api('GET', '/contacts/new@example.com')).status,
        200,
        'leaving a segment keeps the contact',
      );
    },
  );

  browserTest('the owner creates topics with a default explained in words, edits one and deletes one', async () => {
    await page.getByRole('link', { name: 'Topics' }).click();
    await page.getByRole('heading', { name: 'No topics yet' }).waitFor();
    const form = page.getByRole('form', { name: 'Add a topic' });
    assert.match(
      await form.innerText(),
      /Subscribed by default\s+Every contact gets this topic's mail until they opt out\.[\s\S]*Not subscribed by default\s+Only contacts who opt in/,
    );
    await shot('topics-empty');
    const add = async (name: string, description: string, def: RegExp, visibility: RegExp) => {
      if (!(await form.isVisible())) await page.locator('summary', { hasText: 'Add a topic' }).click();
      await form.getByLabel('Name').fill(name);
      await form.getByLabel('Description').fill(description);
      await form.getByRole('radio', { name: def }).check();
      await form.getByRole('radio', { name: visibility }).check();
      await form.getByRole('button', { name: 'Add topic' }).click();
      await topicRow(name).waitFor();
    };
    await add('Newsletter', 'Every Friday', /^Subscribed by default/, /^Private/);
    await add('Product updates', 'What is new, monthly', /^Not subscribed by default/, /^Public/);
    await add('Temporary', 'Soon gone', /^Subscribed by default/, /^Private/);
    const topics = Object.fromEntries(((await t.api('GET', '/topics')).body.data as any[]).map((x) => [x.name, x]));
    assert.deepEqual([topics.Newsletter.default_subscription, topics.Newsletter.visibility], ['opt_in', 'private']);
    assert.deepEqual(
      [
        topics['Product updates'].default_subscription,
        topics['Product updates'].visibility,
        topics['Product updates'].description,
      ],
      ['opt_out', 'public', 'What is new, monthly'],
    );
    assert.match(
      await topicRow('Product updates').innerText(),
      /Product updates\s+What is new, monthly\s+Not subscribed by default\s+Public/,
    );
    await shot('topics-list');

    await topicRow('Product updates').getByRole('button', { name: 'Edit Product updates' }).click();
    const edit = page.getByRole('form', { name: 'Edit Product updates' });
    assert.match(await edit.innerText(), /Default subscription \(fixed\):\s+Not subscribed by default/);
    assert.equal(await edit.getByRole('radio', { name: /default/i }).count(), 0, 'the default cannot be changed');
    await edit.getByLabel('Name').fill('Product news');
    await edit.getByLabel('Description').fill('');
    await edit.getByRole('radio', { name: /^Private/ }).check();
    await shot('topics-edit');
    await edit.getByRole('button', { name: 'Save' }).click();
    await topicRow('Product news').waitFor();
    const got = (await t.api('GET', `/topics/${topics['Product updates'].id}`)).body;
    assert.deepEqual(
      [got.name, got.description, got.visibility, got.default_subscription],
      ['Product news', null, 'private', 'opt_out'],
    );

    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      d.accept();
    });
    await topicRow('Temporary').getByRole('button', { name: 'Delete Temporary' }).click();
    await topicRow('Temporary').waitFor({ state: 'detached' });
    assert.match(asked, /^Delete the topic "Temporary"\?/);
    assert.equal((await t.api('GET', `/topics/${topics.Temporary.id}`)).status, 404);
  });

  browserTest(
    "a contact's page, opened from its row, shows its fields, joins and leaves a segment, and switches topics",
    async () => {
      await page.getByRole('link', { name: 'Contacts' }).click();
      await page
        .getByTestId('contacts')
        .locator('tbody tr', { hasText: 'grace@example.com' })
        .locator('td')
        .nth(1)
        .click(); // the row's name cell, not the link
      await page.getByRole('heading', { name: 'grace@example.com' }).waitFor();
      assert.equal(new URL(page.url()).pathname, `/dashboard/contacts/${ids['grace@example.com']}`);
      const fields = await page.getByRole('region', { name: 'Fields' }).innerText();
      assert.match(fields, /First name\s+Grace/);
      assert.match(fields, /Status\s+Subscribed/);

      const segs = page.locator('section', { has: page.getByRole('heading', { name: 'Segments' }) });
      await segs.getByText('Not in any segment.').waitFor();
      await segs.getByLabel('Segment', { exact: true }).selectOption({ label: 'Weekly readers' });
      await segs.getByRole('button', { name: 'Add to segment' }).click();
      await page.getByTestId('contact-segments').getByRole('link', { name: 'Weekly readers' }).waitFor();
      assert.deepEqual(
        ((await t.api('GET', `/contacts/${ids['grace@example.com']}/segments`)).body.data as any[]).map((s) => s.name),
        ['Weekly readers'],
      );
      assert.deepEqual(await memberEmails(ids.segment), ['ada@example.com', 'grace@example.com']);

      // Topics: each with its effective state and where it comes from.
      const table = page.getByTestId('contact-topics');
      const row = (name: string) => table.locator('tbody tr', { hasText: name });
      assert.match(
        await row('Newsletter').innerText(),
        /Newsletter\s+Every Friday\s+Subscribed\s+Topic default \(subscribed by default\)/,
      );
      assert.match(
        await row('Product news').innerText(),
        /Product news\s+Not subscribed\s+Topic default \(not subscribed by default\)/,
      );
      assert.deepEqual(await contactTopics(ids['grace@example.com']), {
        Newsletter: ['opt_in', false],
        'Product news': ['opt_out', false],
      });
      const news = page.getByRole('switch', { name: 'Product news: subscribed' });
      assert.equal(await news.getAttribute('aria-checked'), 'false');
      await news.click();
      await row('Product news').getByText("Contact's choice").waitFor();
      assert.equal(await news.getAttribute('aria-checked'), 'true');
      await page.getByRole('switch', { name: 'Newsletter: subscribed' }).click();
      await row('Newsletter').getByText("Contact's choice").waitFor();
      assert.match(await row('Newsletter').innerText(), /Not subscribed/);
      assert.deepEqual(await contactTopics(ids['grace@example.com']), {
        Newsletter: ['opt_out', true],
        'Product news': ['opt_in', true],
      });
      await shot('contact-detail');

      await page.getByTestId('contact-segments').getByRole('button', { name: 'Remove from Weekly readers' }).click();
      await segs.getByText('Not in any segment.').waitFor();
      assert.deepEqual(await memberEmails(ids.segment), ['ada@example.com']);

      // Leaving all mail is shown above the topics, which then no longer decide anything.
      await page.getByRole('button', { name: 'Unsubscribe from all mail' }).click();
      await page.getByText('This contact is unsubscribed from all mail').waitFor();
      assert.equal((await t.api('GET', `/contacts/${ids['grace@example.com']}`)).body.unsubscribed, true);
      await page.getByRole('button', { name: 'Resubscribe' }).click();
      await page.getByRole('button', { name: 'Unsubscribe from all mail' }).waitFor();
    },
  );

  browserTest('the owner deletes a segment after confirming; its contacts stay', async () => {
    const made = await t.api('POST', '/segments', { body: { name: 'Old list' } });
    await t.api('POST', `/contacts/${ids['ada@example.com']}/segments/${made.body.id}`);
    await page.getByRole('link', { name: 'Segments' }).click();
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      d.accept();
    });
    await segmentRow('Old list').getByRole('button', { name: 'Delete Old list' }).click();
    await segmentRow('Old list').waitFor({ state: 'detached' });
    assert.equal(asked, 'Delete the segment "Old list"? Its contacts stay; only the list goes.');
    assert.equal((await t.api('GET', `/segments/${made.body.id}`)).status, 404);
    assert.equal((await t.api('GET', `/contacts/${ids['ada@example.com']}`)).status, 200);

    // Dismissing the question deletes nothing, from the segment's own page either.
    await segmentRow('Weekly readers').getByRole('link').click();
    page.once('dialog', (d) => d.dismiss());
    await page.getByRole('button', { name: 'Delete segment' }).click();
    await page.getByRole('heading', { name: 'Weekly readers' }).waitFor();
    assert.equal((await t.api('GET', `/segments/${ids.segment}`)).status, 200);
  });

  browserTest("a member sees segments, topics and a contact's page without any control to change them", async () => {
    await page.goto(`${t.url}/dashboard/team`);
    await page.getByRole('button', { name: 'Create invite link' }).click(); // the form's default role: member
    const link = t.url + new URL(await page.locator('.token code').innerText()).pathname; // the app's public URL is not this port
    const member = await desktopPage(browser, errors);
    await joinThroughInvite(
      member,
      link,
      { name: 'Mo Member', email: 'member@example.com', password: 'member-password-1' },
      (to) => systemMailTo(t, to),
    );

    await member.getByRole('link', { name: 'Segments' }).click();
    await member.getByTestId('segments').locator('tbody tr', { hasText: 'Weekly readers' }).waitFor();
    assert.equal(await member.getByRole('form', { name: 'Create a segment' }).count(), 0);
    assert.equal(await member.getByTestId('segments').getByRole('button').count(), 0);
    await member.getByRole('link', { name: 'Weekly readers' }).click();
    await member.getByTestId('segment-members').locator('tbody tr', { hasText: 'ada@example.com' }).waitFor();
    assert.equal(await member.getByRole('form', { name: 'Add a contact to this segment' }).count(), 0);
    assert.equal(await member.locator('main').getByRole('button').count(), 0, 'no rename, delete or remove');
    await shot('segment-detail-member', member);

    await member.getByRole('link', { name: 'Topics' }).click();
    await member.getByTestId('topics').locator('tbody tr', { hasText: 'Newsletter' }).waitFor();
    assert.equal(await member.getByText('Add a topic').count(), 0);
    assert.equal(await member.locator('main').getByRole('button').count(), 0);

    await member.goto(`${t.url}/dashboard/contacts/${ids['grace@example.com']}`);
    const topics = member.getByTestId('contact-topics');
    await topics.locator('tbody tr', { hasText: 'Product news' }).waitFor();
    assert.match(
      await topics.locator('tbody tr', { hasText: 'Product news' }).innerText(),
      /Subscribed\s+Contact's choice/,
    );
    assert.equal(await member.getByRole('switch').count(), 0);
    assert.equal(await member.getByRole('form').count(), 0);
    assert.deepEqual(await member.locator('main').getByRole('button').allInnerTexts(), ['Copy'], 'only copying the id');
    await shot('contact-detail-member', member);
    await member.context().close();
  });

  browserTest('every audience page fits a 390 px phone, wide tables scrolling in their box', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: 'light',
      storageState: await page.context().storageState(),
    });
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(e.message));
    const pages: [string, string, () => Promise<void>][] = [
      ['segments', '/dashboard/segments', () => p.getByTestId('segments').waitFor()],
      ['segment', `/dashboard/segments/${ids.segment}`, () => p.getByTestId('segment-members').waitFor()],
      ['topics', '/dashboard/topics', () => p.getByTestId('topics').waitFor()],
      ['contact', `/dashboard/contacts/${ids['grace@example.com']}`, () => p.getByTestId('contact-topics').waitFor()],
    ];
    for (const [name, path, ready] of pages) {
      await p.goto(t.url + path);
      await ready();
      await shot(`phone-${name}`, p);
      const width = await p.evaluate(() => document.documentElement.scrollWidth);
      // On failure, name the outermost elements that stick out, to say what to fix.
      const wide =
        width <= 390
          ? []
          : await p.evaluate(() =>
              [...document.querySelectorAll('main, main *')]
                .filter(
                  (e) =>
                    e.getBoundingClientRect().right > 391 &&
                    ![...e.children].some((k) => k.getBoundingClientRect().right > 391),
                )
                .slice(0, 5)
                .map(
                  (e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}px`,
                ),
            );
      assert.ok(width <= 390, `${name}: the page is ${width} px wide (${wide.join('; ')})`);
      if (name !== 'segment') continue;
      // The members table is wider than the phone: its box scrolls to bring the Remove button in.
      const remove = p.getByRole('button', { name: 'Remove ada@example.com from the segment' });
      const before = await remove.boundingBox();
      assert.ok(before && before.x + before.width > 390, 'the button starts (partly) off screen');
      await remove.scrollIntoViewIfNeeded();
      const box = await remove.boundingBox();
      assert.ok(
        box && box.x >= 0 && box.x + box.width <= 390,
        `the button scrolled into view (${JSON.stringify(box)})`,
      );
      assert.equal(await p.evaluate(() => window.scrollX), 0, 'the page itself did not scroll sideways');
      await shot('phone-segment-scrolled', p);
    }
    await p.getByRole('button', { name: 'Menu' }).click();
    await p.getByRole('link', { name: 'Topics' }).waitFor();
    await shot('phone-menu', p, false);
    await phone.close();
    assert.deepEqual(errors, [], 'no script errors on any page');
  });
});

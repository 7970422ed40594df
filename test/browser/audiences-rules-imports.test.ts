// Rule-based segments and contact imports in Chromium: a segment built in the rule builder with
// its live count following every change, the server's 422 shown beside the rule it names, the
// segment's page listing what it matches and its rule edited there; a CSV uploaded with a column
// mapping, its progress bar running to the end with counts and the failed row's reason; a malformed
// file failing with its error; a member seeing all of it without controls; every page at 390 px.
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

describe('Rule-based segments and contact imports in a browser', { timeout: 170_000 }, () => {
  let t: TestApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-rules-imports');
  const shot = (name: string, p: Page = page, fullPage = true) => shots.shot(name, p, fullPage);
  const ids: Record<string, string> = {};
  const count = () => page.getByTestId('preview-count');
  /** Waits until the live count reads `text` exactly (not "updating") and, when given, lists exactly `emails`. */
  const waitCount = async (text: string, emails?: string[]) => {
    await page
      .waitForFunction(
        ([want, list]) => {
          const got = document.querySelector('[data-testid=preview-count]')?.textContent ?? '';
          const shown = [...document.querySelectorAll('[data-testid=preview-contacts] tbody td:first-child')]
            .map((e) => e.textContent)
            .sort()
            .join(',');
          return got === want && (list === null || shown === list);
        },
        [text, emails ? [...emails].sort().join(',') : null] as const,
        { timeout: 10_000 },
      )
      .catch(async () =>
        assert.fail(`the live count never read "${text}" ${emails ?? ''}: "${await count().innerText()}"`),
      );
  };

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>' }); // invite sign-ups confirm by email
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
    for (const body of [
      { key: 'plan', type: 'string' },
      { key: 'seats', type: 'number' },
    ]) {
      assert.equal((await t.api('POST', '/contact-properties', { body })).status, 201);
    }
    const people: [string, string, Record<string, string | number>][] = [
      ['ada@example.com', 'Ada', { plan: 'pro', seats: 10 }],
      ['grace@example.com', 'Grace', { plan: 'free', seats: 1 }],
      ['alan@other.org', 'Alan', { plan: 'pro', seats: 2 }],
    ];
    for (const [email, first_name, properties] of people) {
      const r = await t.api('POST', '/contacts', { body: { email, first_name, properties } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      ids[email] = r.body.id;
    }
    ids.list = (await t.api('POST', '/segments', { body: { name: 'Imported' } })).body.id;
    ids.topic = (
      await t.api('POST', '/topics', { body: { name: 'Newsletter', default_subscription: 'opt_out' } })
    ).body.id;
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest('the owner builds a rule-based segment and the live count follows every change of the rule', async () => {
    await page.goto(`${t.url}/`);
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('link', { name: 'Segments' }).click();
    const form = page.getByRole('form', { name: 'Create a segment' });
    await form.getByLabel('Name', { exact: true }).fill('Pro customers');
    await form.getByRole('radio', { name: /^Rule-based/ }).check();
    await form.getByLabel('Rule 1: value').fill('@example.com');
    await waitCount('2 contacts match', ['ada@example.com', 'grace@example.com']);

    await form.getByLabel('Rule 1: field').selectOption({ label: 'plan' });
    await form.getByLabel('Rule 1: operator').selectOption({ label: 'is' });
    await form.getByLabel('Rule 1: value').fill('pro');
    await waitCount('2 contacts match', ['ada@example.com', 'alan@other.org']);
    await form.getByRole('button', { name: 'Add a rule' }).click();
    await form.getByLabel('Rule 2: value').fill('@example.com');
    await waitCount('1 contact matches', ['ada@example.com']);
    await form.getByLabel('Rules: match').selectOption({ label: 'any' });
    await waitCount('3 contacts match', ['ada@example.com', 'alan@other.org', 'grace@example.com']);
    await form.getByLabel('Rules: match').selectOption({ label: 'all' });
    await waitCount('1 contact matches', ['ada@example.com']);
    await shot('rule-builder');

    // The JSON view shows the same tree, and the builder takes it back.
    await form.getByRole('button', { name: 'Edit as JSON' }).click();
    assert.deepEqual(JSON.parse(await form.getByLabel('Rule as JSON').inputValue()), {
      and: [
        { field: 'properties.plan', op: 'eq', value: 'pro' },
        { field: 'email', op: 'ends_with', value: '@example.com' },
      ],
    });
    await form.getByRole('button', { name: 'Use the rule builder' }).click();
    assert.equal(await form.getByLabel('Rule 2: value').inputValue(), '@example.com');
  });

  browserTest(
    "an invalid rule shows the server's message beside that rule, and fixing it brings the count back",
    async () => {
      const form = page.getByRole('form', { name: 'Create a segment' });
      await form.getByLabel('Rule 2: field').selectOption({ label: 'seats' });
      await form.getByLabel('Rule 2: operator').selectOption({ label: 'is more than' });
      await form.getByLabel('Rule 2: value').fill('lots');
      const second = form.getByTestId('rule-row').nth(1);
      await second.locator('.rule-error').waitFor();
      const message = await second.locator('.rule-error').innerText();
      const server = await t.api('POST', '/segments/preview', {
        body: {
          filter: {
            and: [
              { field: 'properties.plan', op: 'eq', value: 'pro' },
              { field: 'properties.seats', op: 'gt', value: 'lots' },
            ],
          },
        },
      });
      assert.equal(server.status, 422);
      assert.match(server.body.message, /^Invalid `filter\.and\[1\]\.value` field: /);
      assert.equal(
        message,
        `Check the value: ${server.body.message.replace(/^Invalid `[^`]+` field: /, '')}`,
        "the server's own words, beside the rule its path names",
      );
      assert.equal(
        await form.getByTestId('rule-row').first().locator('.rule-error').count(),
        0,
        'only the rule it names',
      );
      await shot('rule-builder-error');
      await form.getByLabel('Rule 2: value').fill('5');
      await waitCount('1 contact matches', ['ada@example.com']);
      assert.equal(await form.locator('.rule-error').count(), 0);
      await form.getByRole('button', { name: 'Remove rule 2' }).click();
      await waitCount('2 contacts match', ['ada@example.com', 'alan@other.org']);
    },
  );

  browserTest(
    "the new segment's page shows its rule, its count and the contacts it matches; the owner edits the rule there",
    async () => {
      await page.getByRole('button', { name: 'Create segment' }).click();
      await page.getByRole('heading', { name: 'Pro customers' }).waitFor();
      const id = new URL(page.url()).pathname.split('/').pop()!;
      ids.rules = id;
      const stored = (await t.api('GET', `/segments/${id}`)).body;
      assert.deepEqual(stored.filter, { and: [{ field: 'properties.plan', op: 'eq', value: 'pro' }] });
      assert.equal(await page.getByTestId('segment-rule').innerText(), 'plan is "pro"');
      assert.equal(await page.getByTestId('segment-count').innerText(), '2 contacts match now');
      const matched = page.getByTestId('segment-contacts').locator('tbody tr');
      await matched.first().waitFor();
      assert.deepEqual((await matched.locator('td:first-child').allInnerTexts()).sort(), [
        'ada@example.com',
        'alan@other.org',
      ]);
      assert.equal(
        await page.getByRole('form', { name: 'Add a contact to this segment' }).count(),
        0,
        'no member controls',
      );
      assert.equal(await page.getByTestId('segment-contacts').getByRole('button').count(), 0);
      await shot('rule-segment');

      await page.getByRole('button', { name: 'Edit rule' }).click();
      const edit = page.getByRole('form', { name: 'Edit the rule' });
      assert.equal(await edit.getByLabel('Rule 1: value').inputValue(), 'pro', 'the builder opens on the stored rule');
      await edit.getByLabel('Rule 1: value').fill('free');
      await waitCount('1 contact matches', ['grace@example.com']);
      await edit.getByRole('button', { name: 'Save rule' }).click();
      await page.getByTestId('segment-rule').filter({ hasText: 'plan is "free"' }).waitFor();
      await page
        .getByTestId('segment-count')
        .filter({ hasText: /^1 contact matches now$/ })
        .waitFor();
      await page.getByTestId('segment-contacts').locator('tbody tr', { hasText: 'grace@example.com' }).waitFor();
      assert.deepEqual((await t.api('GET', `/segments/${id}`)).body.filter, {
        and: [{ field: 'properties.plan', op: 'eq', value: 'free' }],
      });
      await page.getByRole('link', { name: '← Segments' }).click();
      assert.match(
        await page.getByTestId('segments').locator('tbody tr', { hasText: 'Pro customers' }).innerText(),
        /Rule-based/,
      );
    },
  );

  browserTest(
    "a CSV with a bad row is imported with a column mapping, the progress bar completes, and the counts and the failed row's reason show",
    async () => {
      await page.getByRole('link', { name: 'Contacts' }).click();
      await page.getByRole('link', { name: 'Import CSV' }).click();
      await page.getByRole('heading', { name: 'No imports yet' }).waitFor();
      const form = page.getByRole('form', { name: 'Import contacts' });
      const csv =
        'Email Address,First,Plan,Seats\nnew1@example.com,Nia,pro,3\nnot-an-email,Bad,free,1\nada@example.com,Ada,pro,12\nnew2@example.com,Noor,free,4\n';
      await form
        .getByLabel('CSV file')
        .setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
      assert.equal(await form.getByLabel('Column for Email').inputValue(), 'Email Address', 'guessed from the header');
      assert.equal(await form.getByLabel('Column for First name').inputValue(), 'First');
      assert.equal(await form.getByLabel('Column for Last name').inputValue(), '');
      assert.equal(await form.getByLabel('Column for Property seats').inputValue(), 'Seats');
      await form.getByLabel('Column for Property plan').selectOption('Plan');
      await form.getByRole('radio', { name: "Update them with the file's values" }).check();
      await form.getByRole('checkbox', { name: 'Imported' }).check();
      await form.getByLabel('Topic Newsletter').selectOption('opt_in');
      assert.equal(
        await form.getByRole('checkbox', { name: 'Pro customers' }).count(),
        0,
        'a rule-based segment takes no members',
      );
      await shot('import-form');
      await form.getByRole('button', { name: 'Upload and import' }).click();

      await page.getByRole('heading', { name: 'Import', exact: true }).waitFor();
      const bar = page.getByRole('progressbar', { name: 'Import progress' });
      await page.waitForFunction(
        () => document.querySelector('[role=progressbar]')?.getAttribute('aria-valuenow') === '100',
        undefined,
        { timeout: 20_000 },
      );
      assert.equal(await page.getByTestId('import-progress-text').innerText(), 'Done: 4 rows read.');
      assert.equal(await bar.evaluate((e) => (e.firstElementChild as HTMLElement).style.width), '100%');
      const counts = await page.locator('.kv.counts').innerText();
      assert.match(counts, /Rows\s+4\s+Created\s+2\s+Updated\s+1\s+Skipped\s+0\s+Failed\s+1/);
      const failed = page.getByTestId('import-failed-rows').locator('tbody tr');
      assert.equal(await failed.count(), 1);
      const id = new URL(page.url()).pathname.split('/').pop()!;
      const api = (await t.api('GET', `/contacts/imports/${id}`)).body;
      assert.equal(api.status, 'completed');
      assert.deepEqual(await failed.locator('td').allInnerTexts(), ['3', 'not-an-email', api.failed_rows[0].reason]);
      await shot('import-completed');

      const nia = (await t.api('GET', '/contacts/new1@example.com')).body;
      assert.deepEqual([nia.first_name, nia.properties.plan.value, nia.properties.seats.value], ['Nia', 'pro', 3]);
      assert.equal(
        (await t.api('GET', '/contacts/ada@example.com')).body.properties.seats.value,
        12,
        'upsert updated Ada',
      );
      assert.deepEqual(
        ((await t.api('GET', `/segments/${ids.list}/contacts`)).body.data as { email: string }[])
          .map((c) => c.email)
          .sort(),
        ['ada@example.com', 'new1@example.com', 'new2@example.com'],
      );
      const topics = (await t.api('GET', '/contacts/new2@example.com/topics')).body.data as {
        id: string;
        subscription: string;
      }[];
      assert.equal(topics.find((x) => x.id === ids.topic)?.subscription, 'opt_in');
      ids.goodImport = id;
    },
  );

  browserTest('a malformed CSV shows the import failed with its error, and past imports filter by status', async () => {
    await page.getByRole('link', { name: '← Imports' }).click();
    const form = page.getByRole('form', { name: 'Import contacts' });
    await form.getByLabel('CSV file').setInputFiles({
      name: 'broken.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('email,first_name\n"unclosed@example.com,Ann\nx@example.com,X\n'),
    });
    await form.getByRole('button', { name: 'Upload and import' }).click();
    await page.getByRole('heading', { name: 'Import', exact: true }).waitFor();
    await page.locator('.badge', { hasText: 'failed' }).waitFor({ timeout: 20_000 });
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const api = (await t.api('GET', `/contacts/imports/${id}`)).body;
    assert.equal(api.status, 'failed');
    assert.ok(api.error);
    assert.equal(await page.getByRole('alert').innerText(), `The import failed: ${api.error}`);
    assert.equal(
      await page.getByTestId('import-progress-text').innerText(),
      'The import failed; no contact was imported.',
    );
    assert.equal((await t.api('GET', '/contacts/x@example.com')).status, 404);
    await shot('import-failed');

    await page.getByRole('link', { name: '← Imports' }).click();
    const rows = page.getByTestId('imports').locator('tbody tr');
    await rows.nth(1).waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=imports] tbody tr').length === 1);
    assert.match(await rows.first().innerText(), /failed/i);
    await page.getByLabel('Status').selectOption('completed');
    await page.waitForFunction(() =>
      /completed/i.test(document.querySelector('[data-testid=imports] tbody tr')?.textContent ?? ''),
    );
    assert.equal(await rows.count(), 1);
    assert.match(await rows.first().innerText(), /completed\s+4\s+2\s+1\s+0\s+1/i);
    await shot('imports-list');
  });

  browserTest('a member sees the rule, the matches and the imports without any control to change them', async () => {
    await page.goto(`${t.url}/dashboard/team`);
    await page.getByRole('button', { name: 'Create invite link' }).click();
    const link = t.url + new URL(await page.locator('.token code').innerText()).pathname;
    const member = await desktopPage(browser, errors);
    await joinThroughInvite(
      member,
      link,
      { name: 'Mo Member', email: 'member@example.com', password: 'member-password-1' },
      (to) => systemMailTo(t, to),
    );

    await member.getByRole('link', { name: 'Segments' }).click();
    await member.getByRole('link', { name: 'Pro customers' }).click();
    await member.getByTestId('segment-contacts').locator('tbody tr', { hasText: 'grace@example.com' }).waitFor();
    assert.equal(await member.getByTestId('segment-rule').innerText(), 'plan is "free"');
    assert.equal(await member.locator('main').getByRole('button').count(), 0, 'no edit, rename or delete');
    await shot('rule-segment-member', member);

    await member.getByRole('link', { name: 'Contacts' }).click();
    await member.getByRole('link', { name: 'Imports', exact: true }).click();
    await member.getByTestId('imports').locator('tbody tr').nth(1).waitFor();
    assert.equal(await member.getByRole('form', { name: 'Import contacts' }).count(), 0);
    assert.equal(await member.locator('main').getByRole('button').count(), 0);
    await member.goto(`${t.url}/dashboard/contacts/imports/${ids.goodImport}`);
    await member.getByTestId('import-failed-rows').waitFor();
    assert.equal(await member.locator('main').getByRole('button').count(), 0);
    await member.context().close();
  });

  browserTest('the builder, a rule-based segment and the import pages fit a 390 px phone', async () => {
    const phone = await browser.newContext({
      viewport: { width: 390, height: 844 },
      colorScheme: 'light',
      storageState: await page.context().storageState(),
    });
    const p = await phone.newPage();
    p.on('pageerror', (e) => errors.push(e.message));
    const pages: [string, string, () => Promise<void>][] = [
      [
        'builder',
        '/dashboard/segments',
        async () => {
          await p.getByRole('radio', { name: /^Rule-based/ }).check();
          await p.getByRole('button', { name: 'Add a group' }).click();
          await p.getByLabel('Rule 2.1: value').fill('@example.com');
          await p.getByTestId('preview-contacts').waitFor();
        },
      ],
      ['rule-segment', `/dashboard/segments/${ids.rules}`, () => p.getByTestId('segment-contacts').waitFor()],
      ['imports', '/dashboard/contacts/imports', () => p.getByTestId('imports').waitFor()],
      ['import', `/dashboard/contacts/imports/${ids.goodImport}`, () => p.getByTestId('import-failed-rows').waitFor()],
    ];
    for (const [name, path, ready] of pages) {
      await p.goto(t.url + path);
      await ready();
      await shot(`phone-${name}`, p);
      const width = await p.evaluate(() => document.documentElement.scrollWidth);
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
    }
    await phone.close();
    assert.deepEqual(errors, [], 'no script errors on any page');
  });
});

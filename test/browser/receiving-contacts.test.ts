// The Receiving and Contacts pages in Chromium, against a real MX listener: a signed message with
// an inline image and a PDF delivered over SMTP shows in the list and in detail (verdicts,
// attachments, working raw and attachment downloads); contacts are added, renamed, unsubscribed
// and deleted by the owner, and a member sees them without the controls.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import type { Browser, Page } from 'playwright-core';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
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

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(20_000), Buffer.from('\n%%EOF\n')]);
const SUBJECT = 'Order 42: where is my parcel?';

describe('Receiving and Contacts pages in a browser', { timeout: 120_000 }, () => {
  let w: InboundWorld;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-receiving-contacts');
  const shot = (name: string, p: Page = page, fullPage = true) => shots.shot(name, p, fullPage);
  const go = (p: string) => page.goto(w.t.url + p);
  const contactRow = (email: string) => page.getByTestId('contacts').locator('tbody tr', { hasText: email });

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    w = await startInboundWorld({ dashboardFrom: 'Mailroom <no-reply@example.com>' }); // invite sign-ups confirm by email
    browser = await launchBrowser();
    page = await desktopPage(browser, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => w?.close(),
    );
    if (!browserSkip) shots.report();
  });

  browserTest('the owner signs up and finds Receiving empty, with how to receive mail', async () => {
    await go('/');
    await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
    await setUpOwner(page);
    await page.getByRole('link', { name: 'Receiving' }).click();
    await page.getByRole('heading', { name: 'No mail received yet' }).waitFor();
    assert.match(await page.locator('.empty').innerText(), /capabilities[\s\S]*MX[\s\S]*MAILROOM_MX_LISTEN/);
    await shot('receiving-empty');
  });

  browserTest(
    'a message received over SMTP shows in the list, and in detail with verdicts, attachments and downloads',
    async () => {
      const raw = await new MailComposer({
        from: 'Sam Sender <sam@sender.test>',
        to: 'support@inbound.test',
        cc: 'sales@inbound.test',
        subject: SUBJECT,
        messageId: '<order-42@sender.test>',
        text: 'Hello, the parcel has not arrived. Invoice attached.',
        html: '<h1>Where is my parcel?</h1><p>Invoice attached. Logo: <img src="cid:logo@sender.test" alt="logo"></p>',
        attachments: [
          { filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@sender.test' },
          { filename: 'invoice.pdf', content: PDF, contentType: 'application/pdf' },
        ],
      } as never)
        .compile()
        .build();
      const { response } = await w.deliver(raw, { from: 'sam@sender.test', to: ['support@inbound.test'] });
      assert.match(response, /^250 /);

      await page.reload();
      const row = page.locator('table.list tbody tr', { hasText: SUBJECT });
      await row.waitFor();
      const cells = await row.locator('td').allInnerTexts();
      assert.deepEqual(cells.slice(0, 4), ['sam@sender.test', 'support@inbound.test', SUBJECT, '2']);
      assert.equal(cells[4], 'just now');
      await shot('receiving-list');

      await row.getByRole('link', { name: SUBJECT }).click();
      await page.getByRole('heading', { name: SUBJECT }).waitFor();
      const facts = await page.locator('.card').first().innerText();
      assert.match(facts, /From\s+sam@sender\.test/);
      assert.match(facts, /Cc\s+sales@inbound\.test/);
      assert.match(facts, /Received for\s+support@inbound\.test/);
      assert.match(facts, /<order-42@sender\.test>/);
      const auth = page.locator('section', { has: page.getByRole('heading', { name: 'Authentication' }) });
      const verdict = (name: string) =>
        auth.locator('.kv > div', { has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) }).locator('.badge');
      for (const name of ['SPF', 'DKIM', 'DMARC']) {
        assert.equal(await verdict(name).innerText(), 'Pass', name); // text-transform: capitalize
        assert.match((await verdict(name).getAttribute('class')) ?? '', /\bok\b/, `${name} is green`);
      }
      assert.equal(await verdict('ARC').innerText(), 'None', 'no ARC set: "gray" in the API reads None');
      assert.match((await verdict('ARC').getAttribute('class')) ?? '', /\bmuted\b/, 'ARC is neutral');

      // The HTML, with its inline image served as a data: URI inside the sandboxed frame.
      const frame = page.frameLocator('.preview iframe');
      await frame.getByRole('heading', { name: 'Where is my parcel?' }).waitFor();
      assert.match((await frame.locator('img').getAttribute('src')) ?? '', /^data:image\/png;base64,/);

      const atts = page.getByTestId('attachments');
      const pdfRow = atts.locator('tbody tr', { hasText: 'invoice.pdf' });
      assert.match(await pdfRow.innerText(), /invoice\.pdf\s+application\/pdf\s+20 KB\s+attachment/);
      assert.match(await atts.locator('tbody tr', { hasText: 'logo.png' }).innerText(), /image\/png\s+\d+ B\s+inline/);
      await shot('receiving-detail', page, false); // a full-page capture resizes the frame, which reloads it
      await shot('receiving-detail-full');

      // The raw download link serves the message as received (with the DKIM signature added by the sender).
      const rawHref = await page.getByRole('link', { name: 'Download raw (.eml)' }).getAttribute('href');
      const rawRes = await fetch(rawHref!);
      assert.equal(rawRes.status, 200);
      assert.equal(rawRes.headers.get('content-type'), 'message/rfc822');
      const eml = Buffer.from(await rawRes.arrayBuffer());
      assert.ok(eml.includes(raw), 'the raw message contains what was sent');
      const pdfHref = await pdfRow.getByRole('link', { name: 'Download invoice.pdf' }).getAttribute('href');
      assert.deepEqual(Buffer.from(await (await fetch(pdfHref!)).arrayBuffer()), PDF);

      await page.getByRole('tab', { name: 'Text' }).click();
      await page.getByText('the parcel has not arrived').waitFor();
      await page.getByRole('tab', { name: 'Headers' }).click();
      assert.equal(
        await page
          .locator('table.headers tr', { has: page.locator('th', { hasText: /^message-id$/ }) })
          .locator('td')
          .innerText(),
        '<order-42@sender.test>',
      );
    },
  );

  browserTest('the owner adds a contact, renames it, unsubscribes it and deletes it', async () => {
    await page.getByRole('link', { name: 'Contacts' }).click();
    await page.getByRole('heading', { name: 'No contacts yet' }).waitFor();
    const form = page.getByRole('form', { name: 'Add a contact' });
    await form.getByLabel('Email').fill('Ada@Example.com');
    await form.getByLabel('First name').fill('Ada');
    await form.getByLabel('Last name').fill('Byron');
    await form.getByRole('button', { name: 'Add contact' }).click();
    const row = contactRow('ada@example.com');
    await row.waitFor();
    assert.match(await row.innerText(), /ada@example\.com\s+Ada Byron\s+Subscribed\s+just now/);
    const {
      body: { id },
    } = await w.t.api('GET', '/contacts/ada@example.com');
    assert.ok(id);
    await shot('contacts');

    await row.getByRole('button', { name: 'Edit names of ada@example.com' }).click();
    const edit = page.getByRole('form', { name: 'Edit ada@example.com' });
    await edit.getByLabel('Last name').fill('Lovelace');
    await shot('contacts-edit');
    await edit.getByRole('button', { name: 'Save' }).click();
    await row.getByText('Ada Lovelace').waitFor();
    assert.equal((await w.t.api('GET', `/contacts/${id}`)).body.last_name, 'Lovelace');

    await row.getByRole('button', { name: 'Unsubscribe ada@example.com' }).click();
    await row.locator('.badge', { hasText: 'unsubscribed' }).waitFor();
    assert.equal((await w.t.api('GET', `/contacts/${id}`)).body.unsubscribed, true);
    await row.getByRole('button', { name: 'Resubscribe ada@example.com' }).waitFor();
    await shot('contacts-unsubscribed');

    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      d.accept();
    });
    await row.getByRole('button', { name: 'Delete ada@example.com' }).click();
    await page.getByRole('heading', { name: 'No contacts yet' }).waitFor();
    assert.equal(asked, 'Delete the contact ada@example.com?');
    assert.equal((await w.t.api('GET', `/contacts/${id}`)).status, 404);
  });

  browserTest('a member sees the contacts without the controls to change them', async () => {
    assert.equal(
      (await w.t.api('POST', '/contacts', { body: { email: 'grace@example.com', first_name: 'Grace' } })).status,
      201,
    );
    await page.getByRole('link', { name: 'Team' }).click();
    await page.getByRole('button', { name: 'Create invite link' }).click(); // the form's default role: member
    const link = await page.locator('.token code').innerText();
    const member = await desktopPage(browser, errors);
    await joinThroughInvite(
      member,
      link,
      { name: 'Mo Member', email: 'member@example.com', password: 'member-password-1' },
      (to) => systemMailTo(w.t, to),
      shot,
    );
    await member.getByRole('link', { name: 'Contacts' }).click();
    await member.getByTestId('contacts').locator('tbody tr', { hasText: 'grace@example.com' }).waitFor();
    assert.equal(await member.getByRole('form', { name: 'Add a contact' }).count(), 0);
    assert.equal(await member.getByTestId('contacts').getByRole('button').count(), 0);
    await shot('contacts-member', member);
    await member.context().close();
    assert.deepEqual(errors, [], 'no script errors on any page');
  });
});

// The Privacy page in Chromium, at 1440 px and on a 390 px phone: a retention setting changed from
// the page is what GET /privacy/retention answers (and a value above the ceiling is refused in the
// API's words); an export started from the page (JSON at 1440 px, a zip with attachments on the
// phone) downloads through its signed link and holds the address's email; an erasure asks first, naming the address, and then runs. Each request is in
// the audit log with the signed-in owner as its actor.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { strFromU8, unzipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { assertFits, browserTest, captureSuite, OWNER, ownerPage, PHONE, phonePage } from '../helpers/browser.js';
import { until } from '../helpers/until.js';

describe('the Privacy page in a browser', { timeout: 180_000 }, () => {
  const s = captureSuite('mailroom-privacy');

  const signIn = async (page: Page) => {
    await page.goto(`${s.t.url}/`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill(OWNER.email);
    await page.getByLabel('Password').fill(OWNER.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Emails', exact: true }).waitFor();
  };

  const auditActions = async (action: string) => {
    const r = await s.t.api('GET', `/audit-log?action=${encodeURIComponent(action)}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data as { action: string; actor: { kind: string; display: string | null }; target: any }[];
  };

  const run = (
    name: string,
    width: number,
    open: () => Promise<Page>,
    subject: string,
    trackingDays: number,
    zip: boolean,
  ) =>
    browserTest(`${name}: retention, an export downloaded and an erasure, end to end`, async () => {
      const page = await open();
      const to = `${name}-subject@dest.test`;
      await s.t.send({ to, subject });

      // Retention: the page shows every kind with its default and ceiling; a change is what the API answers.
      await page.goto(`${s.t.url}/dashboard/privacy`);
      await page.getByRole('heading', { name: 'Privacy', exact: true }).waitFor();
      const table = page.getByRole('table', { name: 'Retention per kind of data' });
      const bodies = table.getByRole('row').filter({ hasText: 'Email bodies and raw MIME' });
      assert.match((await bodies.textContent()) ?? '', /30 days.*at most 30 days/);
      await page.getByLabel('Tracking (opens and clicks): days kept').fill(String(trackingDays));
      await page.getByRole('button', { name: 'Save retention' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const r = await s.t.api('GET', '/privacy/retention');
      assert.equal(r.body.tracking_days, trackingDays);
      assert.ok(r.body.custom.includes('tracking_days'));
      // Above the ceiling: the API's refusal, on the page.
      await page.getByLabel('Email bodies and raw MIME: days kept').fill('400');
      await page.getByRole('button', { name: 'Save retention' }).click();
      const refusal = page.getByRole('alert');
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? '', /must be at most 30 days/);
      assert.equal((await s.t.api('GET', '/privacy/retention')).body.email_bodies_days, 30, 'nothing changed');
      await page.getByLabel('Email bodies and raw MIME: days kept').fill('');
      const changed = await auditActions('privacy.retention_changed');
      assert.deepEqual([changed[0].actor.kind, changed[0].actor.display], ['user', OWNER.email]);

      // Export: started from the page, listed, downloaded through the signed link.
      const exportForm = page.getByRole('region', { name: 'Export an address' });
      await exportForm.getByLabel('Address', { exact: true }).fill(to);
      if (zip) await exportForm.getByLabel('Include attachments (zip)').check();
      await page.getByRole('button', { name: 'Start export' }).click();
      const exports = page.getByRole('table', { name: 'Exports' });
      const row = exports.getByRole('row').filter({ hasText: to });
      await row.waitFor();
      const link = row.getByRole('link', { name: /^Download export / });
      await link.waitFor({ timeout: 30_000 });
      assert.match((await row.textContent()) ?? '', /completed/i);
      assert.match((await row.textContent()) ?? '', /emails: 1/);
      await s.shots.shot(`privacy-${width}`, page);
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      assert.match(
        download.suggestedFilename(),
        zip ? /^privacy-export-[0-9a-f-]+\.zip$/ : /^privacy-export-[0-9a-f-]+\.json$/,
      );
      const file = fs.readFileSync((await download.path())!);
      const doc = JSON.parse(
        zip ? strFromU8(unzipSync(new Uint8Array(file))['privacy-export.json']) : file.toString('utf8'),
      );
      assert.equal(doc.email, to);
      assert.equal(doc.emails.length, 1);
      assert.equal(doc.emails[0].subject, subject);
      if (zip) assert.deepEqual(doc.attachment_files, [], 'the email had no attachments');
      const exported = await auditActions('privacy.export_requested');
      assert.deepEqual([exported[0].actor.kind, exported[0].actor.display], ['user', OWNER.email]);

      // Erasure: asks first, naming the address; Cancel starts nothing, confirming starts it.
      const erase = page.getByRole('region', { name: 'Erase an address' });
      await erase.getByLabel('Address', { exact: true }).fill(to);
      await erase.getByRole('button', { name: 'Erase…' }).click();
      const dialog = page.getByTestId('erase-confirm');
      await dialog.getByRole('heading', { name: `Erase ${to} from this team?` }).waitFor();
      await s.shots.shot(`privacy-erase-confirm-${width}`, page);
      const before = (await s.t.api('GET', '/privacy/erasures')).body.data.length;
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });
      assert.equal((await s.t.api('GET', '/privacy/erasures')).body.data.length, before, 'Cancel started nothing');
      await erase.getByRole('button', { name: 'Erase…' }).click();
      await dialog.getByRole('button', { name: `Erase ${to}` }).click();
      const erasures = page.getByRole('table', { name: 'Erasures' });
      const erased = erasures.getByRole('row').filter({ hasText: to });
      await erased.waitFor();
      await until(
        'the erasure completes on the page',
        async () => /completed/i.test((await erased.textContent()) ?? ''),
        30_000,
      );
      assert.match((await erased.textContent()) ?? '', /emails addressed: 1/);
      const list = (await s.t.api('GET', '/privacy/erasures')).body.data;
      assert.equal(list.length, before + 1);
      assert.equal(list[0].status, 'completed');
      const requested = await auditActions('privacy.erasure_requested');
      assert.equal(requested[0].target.id, list[0].id);
      assert.deepEqual([requested[0].actor.kind, requested[0].actor.display], ['user', OWNER.email]);

      await assertFits(page, width);
      assert.deepEqual(s.errors, []);
    });

  run(
    'desktop',
    1440,
    async () => {
      const page = await ownerPage(s.browser, s.t.url, s.errors, { width: 1440, height: 900 });
      return page;
    },
    'Your desktop receipt',
    30,
    false,
  );

  run(
    'phone',
    PHONE.width,
    async () => {
      const page = await phonePage(s.browser, s.errors);
      await signIn(page);
      return page;
    },
    'Your phone receipt',
    45,
    true,
  );
});

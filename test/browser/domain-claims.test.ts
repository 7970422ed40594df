// The Domains page in Chromium tells a team that a domain of its was taken by a verified claim of
// another team (GET /domains/claims), with the domain gone from its list.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { Resend } from 'resend';
import { startMailWorld, type MailWorld } from '../helpers/mail-world.js';
import { browserSkip, browserTest, launchBrowser, ownerPage } from '../helpers/browser.js';
import { closeAll } from '../helpers/close-all.js';
import { teamCreate } from '../../src/store/teams.js';

describe('a claimed domain on the Domains page', { timeout: 120_000 }, () => {
  let w: MailWorld;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    if (browserSkip) return;
    w = await startMailWorld();
    await w.t.resend.domains.create({ name: 'kept.example' });
    const team = await teamCreate(w.t.db.pool, 'Claimant');
    const claimant = new Resend((await w.t.app.apiKeys.create(team.id, { name: 'c' })).token, { baseUrl: w.t.url });
    const c = (await claimant.domains.claims.create({ name: 'example.com' })).data!;
    w.dns.set('example.com', 'TXT', [c.record.value]);
    assert.equal((await claimant.domains.claims.verify(c.domain_id!)).data!.status, 'completed');
    browser = await launchBrowser();
    page = await ownerPage(browser, w.t.url, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => w?.close(),
    );
  });

  browserTest(
    'the former holder reads that example.com moved to another team, and it is no longer listed',
    async () => {
      const notice = page.getByRole('region', { name: 'Domain claims' });
      await notice.waitFor();
      assert.match(await notice.innerText(), /example\.com moved to another team .*proved control of the domain/);
      await page.getByRole('link', { name: 'kept.example' }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'example.com', exact: true }).count(), 0);
      assert.deepEqual(errors, []);
    },
  );
});

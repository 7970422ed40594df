// The Deliverability page of a domain in Chromium: reached from the domain's page, it shows the
// health checks read from the fake DNS (and their change after "Check again"), and the DMARC
// reports that were mailed to the inbound MX over SMTP, per day and per source. Screenshots.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { browserSkip, browserTest, launchBrowser, ownerPage, screenshots } from '../helpers/browser.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { closeAll } from '../helpers/close-all.js';

const DAY = 86_400;
const utcDay = (daysAgo: number) => Math.floor(Date.now() / 1000 / DAY - daysAgo) * DAY;
/** The google.xml fixture moved to a day `daysAgo` back (the page shows the last 30 days). */
function reportFor(daysAgo: number, id: string): string {
  const begin = utcDay(daysAgo);
  return fs
    .readFileSync(new URL('../fixtures/dmarc/google.xml', import.meta.url), 'utf8')
    .replace('<begin>1795132800</begin>', `<begin>${begin}</begin>`)
    .replace('<end>1795219199</end>', `<end>${begin + DAY - 1}</end>`)
    .replace('11843372409214418305', id);
}
const mail = (filename: string, content: Buffer, contentType: string) =>
  new MailComposer({
    from: 'noreply-dmarc-support@google.com',
    to: 'dmarc@inbound.test',
    subject: 'Report domain: example.com',
    text: 'Aggregate report.',
    attachments: [{ filename, content, contentType }],
  } as never)
    .compile()
    .build();

describe('Deliverability page in a browser', { timeout: 170_000 }, () => {
  let w: InboundWorld;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-deliverability');
  const row = (check: string) => page.locator(`[data-testid="domain-health"] tr[data-check="${check}"]`);

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    w = await startInboundWorld({
      outboundAddresses: ['192.0.2.10'],
      dnsblZones: ['bl.test'],
      domainDnsblZones: ['dbl.test'],
    });
    const dom = await w.t.api('GET', `/domains/${w.domainId}`);
    publishRecords(w.dns, 'example.com', dom.body.records as WireRecord[]);
    w.dns.set('example.com', 'TXT', ['v=spf1 -all']);
    w.dns.set('_dmarc.example.com', 'TXT', ['v=DMARC1; p=none; rua=mailto:dmarc@inbound.test']);
    w.dns.set('example.com._report._dmarc.inbound.test', 'TXT', ['v=DMARC1']); // inbound.test agrees to take example.com's reports
    w.dns.set('_smtp._tls.example.com', 'TXT', ['v=TLSRPTv1; rua=mailto:tls@example.com']);
    w.dns.set('10.2.0.192.in-addr.arpa', 'PTR', ['out.mailroom.test']);
    w.dns.set('out.mailroom.test', 'A', ['192.0.2.10']);
    w.dns.set('10.2.0.192.bl.test', 'A', ['127.0.0.2']);
    w.dns.set('10.2.0.192.bl.test', 'TXT', ['Listed: see https://bl.test/lookup']);
    const env = { from: 'dmarc@sender.test', to: ['dmarc@inbound.test'] };
    await w.deliver(await mail('google.com!example.com!a.xml', Buffer.from(reportFor(2, 'r-2')), 'text/xml'), env);
    await w.deliver(
      await mail('google.com!example.com!b.xml.gz', gzipSync(reportFor(1, 'r-1')), 'application/gzip'),
      env,
    );
    browser = await launchBrowser();
    page = await ownerPage(browser, w.t.url, errors);
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => w?.close(),
    );
    shots.report();
  });

  browserTest('the domain page links to Deliverability, which shows each health check with its fix', async () => {
    await page.goto(`${w.t.url}/dashboard/domains/${w.domainId}`);
    await page.getByRole('link', { name: 'Deliverability' }).click();
    await page.getByRole('heading', { name: 'Deliverability · example.com' }).waitFor();
    assert.match(page.url(), new RegExp(`/dashboard/domains/${w.domainId}/deliverability$`));
    await row('dkim').waitFor();
    assert.equal(await page.getByTestId('capture-banner').count(), 0, 'no capture-mode banner when mail is delivered');
    assert.match(await row('dkim').innerText(), /pass[\s\S]*2048 bits/i);
    assert.match(await row('dmarc_policy').innerText(), /warn[\s\S]*p=none: monitoring only[\s\S]*p=quarantine/i);
    assert.match(await row('reverse_dns').innerText(), /pass[\s\S]*forward-confirmed/i);
    assert.match(await row('blocklist_ips').innerText(), /fail[\s\S]*192\.0\.2\.10 on bl\.test[\s\S]*request removal/i);
    assert.match(await row('dmarc_rua').innerText(), /pass[\s\S]*inbound\.test/i);
    assert.match(await page.getByTestId('domain-health').locator('h2').innerText(), /fail/i);
    await shots.shot('deliverability-health', page);
  });

  browserTest('"Check again" reads DNS anew: a fixed record turns its check to pass', async () => {
    w.dns.set('_dmarc.example.com', 'TXT', ['v=DMARC1; p=reject; rua=mailto:dmarc@inbound.test']);
    w.dns.remove('10.2.0.192.bl.test');
    await page.getByRole('button', { name: 'Check again' }).click();
    // "p=reject" is in the old row too (its fix names it): wait for text only the new answer has.
    await row('blocklist_ips')
      .filter({ hasText: /not listed/i })
      .waitFor();
    assert.match(await row('blocklist_ips').innerText(), /pass[\s\S]*not listed/i);
    assert.match(await row('dmarc_policy').locator('td').first().innerText(), /^pass$/i);
    assert.match(await row('dmarc_policy').innerText(), /p=reject/);
  });

  browserTest('the DMARC summary shows per-day results and the sources, flagging the one that fails', async () => {
    const days = page.getByTestId('dmarc-days');
    await days.waitFor();
    assert.equal(await days.locator('tbody tr').count(), 2);
    assert.match(await days.locator('tbody tr').first().innerText(), /125\s+96\.0%\s+96\.0%\s+96\.0%/);
    const sources = page.getByTestId('dmarc-sources');
    assert.match(await sources.locator('tbody tr').nth(0).innerText(), /127\.0\.0\.1\s+240\s+100\.0%/);
    assert.match(await sources.locator('tbody tr').nth(1).innerText(), /203\.0\.113\.7\s+10\s+0\.0%/);
    await page.getByText('Some sources fail DMARC').waitFor();
    assert.equal(await page.locator('[data-testid="dmarc-reports"] figure.chart').count(), 1);
    await page.getByTestId('dmarc-reports').scrollIntoViewIfNeeded();
    await shots.shot('deliverability-dmarc', page);
    // The reputation guard's rates over time, thresholds drawn, on the same page below the reports.
    const rep = page.locator('section.reputation');
    await rep.getByRole('heading', { name: 'Reputation' }).waitFor();
    assert.match(await rep.innerText(), /Last 7 days/);
    await rep.scrollIntoViewIfNeeded();
    await shots.shot('deliverability-reputation', page);
  });

  browserTest('a domain without reports explains how to point rua at Mailroom', async () => {
    await page.goto(`${w.t.url}/dashboard/domains/${w.receivingDomainId}/deliverability`);
    await page.getByRole('heading', { name: 'No DMARC reports yet' }).waitFor();
    assert.match(await page.getByTestId('dmarc-reports').innerText(), /rua=mailto:dmarc@/);
    await row('mta_sts').waitFor();
    assert.equal(await row('dkim').count(), 0, 'a receiving-only domain has no sending checks');
    await shots.shot('deliverability-empty', page);
    assert.deepEqual(errors, []);
  });
});

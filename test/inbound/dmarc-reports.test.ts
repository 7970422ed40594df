// DMARC aggregate reports mailed to a receiving domain over a real SMTP socket to the inbound MX,
// as XML, .xml.gz and .zip attachments (test/fixtures/dmarc), then read back through
// GET /domains/:id/dmarc-reports with an API key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { until } from '../helpers/until.js';

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/dmarc/${name}`, import.meta.url));
const compose = (opts: Record<string, unknown>) => new MailComposer(opts as never).compile().build();
const reportMail = (reporter: string, filename: string, content: Buffer, contentType: string) =>
  compose({
    from: `DMARC reports <noreply-dmarc@${reporter}>`,
    to: 'dmarc@inbound.test',
    subject: `Report domain: example.com Submitter: ${reporter}`,
    text: 'This is an aggregate report from the receiver.',
    attachments: [{ filename, content, contentType }],
  });

describe('DMARC aggregate reports received by the inbound MX', () => {
  let w: InboundWorld;
  const WINDOW = 'from=2026-11-20&to=2026-11-21';
  const summary = async (q = WINDOW) => {
    const res = await w.t.api('GET', `/domains/${w.domainId}/dmarc-reports?${q}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const deliver = (raw: Buffer) => w.deliver(raw, { from: 'dmarc-bounces@sender.test', to: ['dmarc@inbound.test'] });

  before(async () => {
    w = await startInboundWorld();
  });
  after(async () => {
    await w.close();
  });

  test('reports in all three formats are parsed, stored per domain, and summed per day and per source', async () => {
    for (const [reporter, file, type] of [
      ['google.com', 'google.xml', 'text/xml'],
      ['yahoo.com', 'yahoo.xml.gz', 'application/gzip'],
      ['microsoft.com', 'outlook.zip', 'application/zip'],
    ]) {
      const { response } = await deliver(
        await reportMail(
          reporter,
          `${reporter}!example.com!1795219200!1795305599.${file.split('.').slice(1).join('.')}`,
          fixture(file),
          type,
        ),
      );
      assert.match(response, /^250 /);
    }
    const s = await until('three reports', async () => {
      const b = await summary();
      return b.reports.length === 3 && b;
    });
    assert.equal(s.object, 'dmarc_report_summary');
    assert.equal(s.name, 'example.com');
    assert.deepEqual(s.days, [
      {
        date: '2026-11-21',
        reports: 2,
        messages: 103,
        spf_pass: 60,
        dkim_pass: 100,
        dmarc_pass: 100,
        quarantined: 3,
        rejected: 0,
      },
      {
        date: '2026-11-20',
        reports: 1,
        messages: 125,
        spf_pass: 120,
        dkim_pass: 120,
        dmarc_pass: 120,
        quarantined: 0,
        rejected: 0,
      },
    ]);
    assert.deepEqual(
      s.sources.map((x: { source_ip: string; messages: number; dmarc_pass: number }) => [
        x.source_ip,
        x.messages,
        x.dmarc_pass,
      ]),
      [
        ['127.0.0.1', 220, 220],
        ['203.0.113.7', 5, 0],
        ['198.51.100.20', 3, 0],
      ],
    );
    assert.deepEqual(s.sources[0].reporters, ['Enterprise Outlook', 'Yahoo', 'google.com']);
    const google = s.reports.find((r: { org_name: string }) => r.org_name === 'google.com');
    assert.equal(google.report_id, '11843372409214418305');
    assert.equal(google.org_email, 'noreply-dmarc-support@google.com');
    assert.equal(google.messages, 125);
    assert.deepEqual(google.policy, { domain: 'example.com', adkim: 'r', aspf: 'r', p: 'none', sp: 'none', pct: 100 });
    const { rows } = await w.t.db.pool.query(
      "SELECT w.* FROM dmarc_report_rows w JOIN dmarc_reports r ON r.id = w.report_id WHERE r.org_name = 'Yahoo' ORDER BY position",
    );
    assert.deepEqual(
      rows.map((r) => [r.source_ip, Number(r.count), r.disposition, r.dkim, r.spf, r.header_from]),
      [
        ['127.0.0.1', 40, 'none', 'pass', 'fail', 'example.com'],
        ['198.51.100.20', 3, 'quarantine', 'fail', 'fail', 'example.com'],
      ],
    );
    assert.deepEqual(rows[0].auth_results, {
      dkim: [{ domain: 'example.com', selector: 'mailroom', result: 'pass' }],
      spf: [{ domain: 'send.example.com', scope: null, result: 'fail' }],
    });
    // the message itself is ordinary received mail too
    const received = await w.t.api('GET', '/emails/receiving');
    assert.ok(received.body.data.filter((e: { to: string[] }) => e.to.includes('dmarc@inbound.test')).length >= 3);
  });

  test('the same report sent again is stored once', async () => {
    await deliver(await reportMail('google.com', 'again.xml', fixture('google.xml'), 'application/xml'));
    const n = async () =>
      Number(
        (await w.t.db.pool.query("SELECT count(*) AS n FROM received_emails WHERE subject LIKE 'Report domain:%'"))
          .rows[0].n,
      );
    await until('the fourth report message', async () => (await n()) === 4);
    assert.equal((await summary()).reports.length, 3);
  });

  test('a report about a domain the team does not own, and an XML that is not a report, are not stored', async () => {
    const foreign = fixture('google.xml')
      .toString()
      .replace(/<domain>example\.com<\/domain>/, '<domain>stranger.test</domain>')
      .replace('11843372409214418305', 'foreign-1');
    await deliver(await reportMail('google.com', 'foreign.xml.gz', gzipSync(foreign), 'application/gzip'));
    await deliver(
      await reportMail(
        'google.com',
        'invoice.xml',
        Buffer.from('<?xml version="1.0"?><invoice><total>3</total></invoice>'),
        'text/xml',
      ),
    );
    await deliver(
      await reportMail('google.com', 'broken.zip', Buffer.from('PK\u0003\u0004 not really a zip'), 'application/zip'),
    );
    await until(
      'the three messages',
      async () =>
        Number(
          (await w.t.db.pool.query("SELECT count(*) AS n FROM received_emails WHERE subject LIKE 'Report domain:%'"))
            .rows[0].n,
        ) === 7,
    );
    assert.equal(Number((await w.t.db.pool.query('SELECT count(*) AS n FROM dmarc_reports')).rows[0].n), 3);
  });

  test('the window: a window without reports is empty; bad parameters are 422; unknown domain 404', async () => {
    const empty = await summary('from=2026-10-01&to=2026-10-31');
    assert.deepEqual([empty.days, empty.sources, empty.reports], [[], [], []]);
    assert.equal((await summary('days=7')).object, 'dmarc_report_summary');
    for (const q of [
      'days=0',
      'days=abc',
      'days=400',
      'from=yesterday',
      'from=2026-11-21&to=2026-11-20',
      'from=2025-01-01&to=2026-11-20',
    ]) {
      const res = await w.t.api('GET', `/domains/${w.domainId}/dmarc-reports?${q}`);
      assert.equal(res.status, 422, q);
      assert.equal(res.body.name, 'validation_error');
    }
    assert.equal((await w.t.api('GET', '/domains/00000000-0000-4000-8000-000000000000/dmarc-reports')).status, 404);
    assert.equal((await w.t.api('GET', `/domains/${w.domainId}/dmarc-reports`, { key: null })).status, 401);
  });
  test("rows go to the team's domain named by header_from: a subdomain that inherits the parent's DMARC record gets its own rows", async () => {
    const sub = await w.t.api('POST', '/domains', { body: { name: 'news.example.com' } });
    assert.equal(sub.status, 201);
    const begin = Date.parse('2026-09-15T00:00:00Z') / 1000;
    const xml = fixture('google.xml')
      .toString()
      .replace('<begin>1795132800</begin>', `<begin>${begin}</begin>`)
      .replace('<end>1795219199</end>', `<end>${begin + 86_399}</end>`)
      .replace('11843372409214418305', 'split-1')
      .replace('<count>120</count>', '<count>7</count>')
      .replace('<header_from>example.com</header_from>', '<header_from>news.example.com</header_from>')
      .replace('<source_ip>203.0.113.7</source_ip>', '<source_ip>203.0.113.8</source_ip>')
      .replace('<count>5</count>', '<count>2</count>');
    await deliver(await reportMail('google.com', 'split.xml', Buffer.from(xml), 'text/xml'));
    const q = 'from=2026-09-15&to=2026-09-15';
    const forSub = await until("the subdomain's rows", async () => {
      const b = (await w.t.api('GET', `/domains/${sub.body.id}/dmarc-reports?${q}`)).body;
      return b.reports?.length === 1 && b;
    });
    assert.deepEqual(
      forSub.sources.map((x: { source_ip: string; messages: number }) => [x.source_ip, x.messages]),
      [['127.0.0.1', 7]],
    );
    assert.equal(forSub.reports[0].policy.domain, 'example.com');
    const forParent = await summary(q);
    assert.deepEqual(
      forParent.sources.map((x: { source_ip: string; messages: number }) => [x.source_ip, x.messages]),
      [['203.0.113.8', 2]],
    );
  });
});

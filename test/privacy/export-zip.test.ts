// POST /privacy/exports {include_attachments: true} (issue 29): a zip of the JSON document and the
// attachments of the address's sent and received emails, downloaded through the signed link and
// read back by real unzippers (fflate; Info-ZIP's `unzip -t` where installed); the default stays
// the JSON document; past MAILROOM_PRIVACY_EXPORT_MAX_BYTES the export ends failed with a message
// (not retried) and leaves no blob behind; the audit entry says attachments were asked for.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { until } from '../helpers/until.js';

const ADDR = 'zoe.subject@dest.test';
const BIG = 'big.sender@dest.test';
const CAP = 200_000;
const compose = (opts: Record<string, unknown>) => new MailComposer(opts as never).compile().build();

describe('privacy exports with attachments', () => {
  let w: InboundWorld;
  const pdf = randomBytes(40_000);
  const csv = Buffer.from('name,value\nzoe,1\n'.repeat(500));
  let sentId = '';
  let receivedId = '';

  const waitDone = (id: string) =>
    until(
      'the export to finish',
      async () => {
        const r = await w.t.api('GET', `/privacy/exports/${id}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.status === 'completed' || r.body.status === 'failed' ? r.body : undefined;
      },
      30_000,
    );

  before(async () => {
    w = await startInboundWorld({ rateLimit: 1000, privacyExportMaxBytes: CAP });
    const sent = await w.t.resend.emails.send({
      from: 'Acme <hello@example.com>',
      to: ADDR,
      subject: 'Your invoice',
      html: '<p>Attached.</p>',
      attachments: [
        { filename: 'invoice.pdf', content: pdf.toString('base64') },
        { filename: '../../etc/passwd', content: Buffer.from('not a path').toString('base64') },
      ],
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    sentId = sent.data!.id;
    const raw = await compose({
      from: `Zoe <${ADDR}>`,
      to: 'support@inbound.test',
      subject: 'My data',
      text: 'See the sheet.',
      attachments: [{ filename: 'sheet.csv', content: csv, contentType: 'text/csv' }],
    });
    const { response } = await w.deliver(raw, { from: ADDR, to: ['support@inbound.test'] }, { sign: false });
    receivedId = /queued as ([0-9a-f-]{36})/.exec(response)![1];
    const big = await compose({
      from: BIG,
      to: 'support@inbound.test',
      subject: 'Large',
      text: 'Large file.',
      attachments: [{ filename: 'large.bin', content: randomBytes(CAP + 10_000) }],
    });
    await w.deliver(big, { from: BIG, to: ['support@inbound.test'] }, { sign: false });
    await until('both received emails stored', async () => {
      const r = await w.t.api('GET', '/emails/receiving');
      return r.body.data?.length === 2;
    });
  });
  after(() => w?.close());

  test('the zip holds the document and every attachment, byte for byte, under safe names', async () => {
    const start = await w.t.api('POST', '/privacy/exports', { body: { email: ADDR, include_attachments: true } });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    const done = await waitDone(start.body.id);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.include_attachments, true);
    assert.equal(done.counts.attachments, 3);
    const res = await fetch(done.download_url);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zip');
    assert.match(res.headers.get('content-disposition')!, /privacy-export-[0-9a-f-]+\.zip"/);
    const zip = Buffer.from(await res.arrayBuffer());
    assert.equal(Number(res.headers.get('content-length')), zip.length);
    const files = unzipSync(new Uint8Array(zip));
    const names = Object.keys(files).sort();
    assert.deepEqual(names, [
      `attachments/received/${receivedId}/1-sheet.csv`,
      `attachments/sent/${sentId}/1-invoice.pdf`,
      `attachments/sent/${sentId}/2-_.._etc_passwd`,
      'privacy-export.json',
    ]);
    assert.ok(Buffer.from(files[`attachments/sent/${sentId}/1-invoice.pdf`]).equals(pdf));
    assert.ok(Buffer.from(files[`attachments/received/${receivedId}/1-sheet.csv`]).equals(csv));
    const doc = JSON.parse(strFromU8(files['privacy-export.json']));
    assert.equal(doc.email, ADDR);
    assert.deepEqual(
      doc.emails.map((e: { id: string }) => e.id),
      [sentId],
    );
    assert.deepEqual(
      doc.received_emails.map((e: { id: string }) => e.id),
      [receivedId],
    );
    assert.deepEqual(
      doc.attachment_files.map((f: { path: string; direction: string; size: number }) => [f.path, f.direction, f.size]),
      [
        [`attachments/sent/${sentId}/1-invoice.pdf`, 'sent', pdf.length],
        [`attachments/sent/${sentId}/2-_.._etc_passwd`, 'sent', 10],
        [`attachments/received/${receivedId}/1-sheet.csv`, 'received', csv.length],
      ],
    );
    try {
      execFileSync('unzip', ['-v'], { stdio: 'ignore' });
    } catch {
      return; // no Info-ZIP here: fflate's reading above stands
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-zip-'));
    try {
      fs.writeFileSync(path.join(dir, 'x.zip'), zip);
      assert.match(execFileSync('unzip', ['-t', path.join(dir, 'x.zip')], { encoding: 'utf8' }), /No errors detected/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('without include_attachments the export stays the JSON document', async () => {
    const start = await w.t.api('POST', '/privacy/exports', { body: { email: ADDR } });
    const done = await waitDone(start.body.id);
    assert.equal(done.status, 'completed');
    assert.equal(done.include_attachments, false);
    const res = await fetch(done.download_url);
    assert.match(res.headers.get('content-type')!, /application\/json/);
    const doc = (await res.json()) as Record<string, unknown>;
    assert.equal(doc.email, ADDR);
    assert.equal(doc.attachment_files, undefined);
  });

  test('past the cap the export fails with a message, is not retried and leaves no blob', async () => {
    const blobs = async () => Number((await w.t.db.pool.query('SELECT count(*) FROM blob_chunks')).rows[0].count);
    const before = await blobs();
    const start = await w.t.api('POST', '/privacy/exports', { body: { email: BIG, include_attachments: true } });
    const done = await waitDone(start.body.id);
    assert.equal(done.status, 'failed');
    assert.match(done.error, /more than 195 KiB, the most an export zip holds\. Export without attachments/);
    assert.equal(done.download_url, null);
    assert.equal(await blobs(), before, 'the chunks written before the cap are gone');
    // The job ends without an error (a thrown one would be retried, with its last_error kept).
    await until('the export job to end', async () => {
      const jobs = await w.t.db.pool.query("SELECT last_error FROM jobs WHERE kind = 'privacy.export'");
      for (const j of jobs.rows) assert.equal(j.last_error, null);
      return jobs.rowCount === 0;
    });
    // A JSON-only export of the same address still works.
    const json = await waitDone(
      (await w.t.api('POST', '/privacy/exports', { body: { email: BIG } })).body.id as string,
    );
    assert.equal(json.status, 'completed');
  });

  test('the audit entry of a zip export says attachments were asked for, never the address', async () => {
    const r = await w.t.api('GET', '/audit-log?action=privacy.export_requested');
    const entries = r.body.data as { summary: { after?: { include_attachments?: boolean } } }[];
    assert.equal(entries.filter((e) => e.summary.after?.include_attachments === true).length, 2);
    assert.ok(!JSON.stringify(r.body).includes(ADDR));
  });
});

// The DMARC aggregate report parser on the fixtures (plain XML, gzip, zip) and on hostile input:
// archives that inflate past the limit (bombs whose headers lie), zip entries that are not XML,
// XML that is not a report.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { gzipSync } from 'node:zlib';
import { zipSync, strToU8 } from 'fflate';
import { watchLoop } from '../helpers/loop-watch.js';
import { deflatedZeros, gzipOf, zipWithLyingHeader } from '../helpers/zip-bomb.js';
import {
  mayBeReport,
  parseAggregateReport,
  reportHeadPlausible,
  reportsIn as read,
} from '../../src/inbound/dmarc-report.js';

const reportsIn = async (bytes: Buffer) => (await read(bytes)).reports;

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/dmarc/${name}`, import.meta.url));

test('each fixture format yields its one report with metadata, policy and rows', async () => {
  const [g] = await reportsIn(fixture('google.xml'));
  assert.equal(g.orgName, 'google.com');
  assert.equal(g.dateBegin.toISOString(), '2026-11-20T00:00:00.000Z');
  assert.equal(g.rows.length, 2);
  assert.deepEqual(g.rows[1], {
    sourceIp: '203.0.113.7',
    count: 5,
    disposition: 'none',
    dkim: 'fail',
    spf: 'fail',
    headerFrom: 'example.com',
    authResults: { dkim: [], spf: [{ domain: 'spoofer.test', scope: null, result: 'softfail' }] },
  });
  const [y] = await reportsIn(fixture('yahoo.xml.gz'));
  assert.deepEqual([y.orgName, y.reportId, y.rows.map((r) => r.count)], ['Yahoo', '1795219200.733916', [40, 3]]);
  const [o] = await reportsIn(fixture('outlook.zip'));
  assert.deepEqual(
    [o.orgName, o.policy.domain, o.rows[0].authResults.spf[0].scope],
    ['Enterprise Outlook', 'example.com', 'mfrom'],
  );
});

test('a zip keeps only its .xml entries; several reports in one zip are all read', async () => {
  const xml = fixture('google.xml').toString();
  const zip = Buffer.from(
    zipSync({
      'a.xml': strToU8(xml),
      'b.xml': strToU8(xml.replace('11843372409214418305', 'second')),
      'readme.txt': strToU8('<feedback>not this</feedback>'),
    }),
  );
  assert.deepEqual((await reportsIn(zip)).map((r) => r.reportId).sort(), ['11843372409214418305', 'second']);
});

test('archives that inflate past 50 MB are refused without inflating them whole', async () => {
  // a valid report followed by 51 MB of whitespace: it would parse if the limit were not there
  const big = Buffer.concat([fixture('google.xml'), Buffer.alloc(51 * 1024 * 1024, 0x20)]);
  const small = Buffer.concat([fixture('google.xml'), Buffer.alloc(1024 * 1024, 0x20)]);
  assert.equal((await reportsIn(gzipSync(small))).length, 1);
  assert.equal((await reportsIn(Buffer.from(zipSync({ 'small.xml': small })))).length, 1);
  assert.deepEqual(await reportsIn(gzipSync(big)), []);
  assert.deepEqual(await reportsIn(Buffer.from(zipSync({ 'big.xml': big }))), []);
});

test('a zip whose header lies about its size and a gzip bomb are refused as too large, and a real report still reads after them', async () => {
  const zeros = deflatedZeros(2 * 1024 ** 3);
  const zip = await read(zipWithLyingHeader('google.com!example.com!1!2.xml', zeros));
  assert.deepEqual(zip, {
    reports: [],
    refused: { reason: 'too_large', detail: `inflates past ${50 * 1024 * 1024} bytes` },
  });
  assert.equal((await read(gzipOf(zeros))).refused?.reason, 'too_large');
  assert.equal((await read(Buffer.from('PK\u0003\u0004 not really a zip'))).refused?.reason, 'corrupt');
  assert.equal((await reportsIn(fixture('outlook.zip'))).length, 1);
});

test('a large report is parsed off the event loop: 8 MB of XML never stalls it', async () => {
  // parsing this on the event loop held it for 1.6 s or more (49 MB: 12.5 s)
  const zip = Buffer.from(
    zipSync({ 'big.xml': Buffer.concat([fixture('google.xml'), Buffer.alloc(8 * 1024 * 1024, 0x20)]) }),
  );
  const loop = watchLoop();
  const reports = await reportsIn(zip).finally(() => loop.stop());
  const { worstBusyMs } = loop.stop();
  assert.equal(reports.length, 1);
  assert.ok(worstBusyMs < 250, `the event loop was held for ${worstBusyMs.toFixed(0)} ms`);
});

test('XML that is not a report, broken XML and a report without its required fields give nothing', async () => {
  assert.equal(parseAggregateReport('<?xml version="1.0"?><invoice/>'), null);
  assert.deepEqual(await reportsIn(Buffer.from('<feedback><report_metadata><org_name>x</org_name')), []);
  assert.equal(
    parseAggregateReport('<feedback><report_metadata><org_name>x</org_name></report_metadata></feedback>'),
    null,
  );
});

test('which attachments are looked at: by type or by name', () => {
  assert.ok(mayBeReport('application/gzip', null));
  assert.ok(mayBeReport('application/x-zip-compressed', 'r.zip'));
  assert.ok(mayBeReport('application/octet-stream', 'google.com!example.com!1!2.xml.gz'));
  assert.ok(!mayBeReport('image/png', 'logo.png'));
  assert.ok(!mayBeReport('application/pdf', 'invoice.pdf'));
});

test('which bytes are read as a possible report: an archive, or XML opening <feedback in its first 4,096 characters', () => {
  const xml = fixture('google.xml');
  assert.ok(reportHeadPlausible(fixture('yahoo.xml.gz')));
  assert.ok(reportHeadPlausible(fixture('outlook.zip')));
  assert.ok(reportHeadPlausible(xml));
  assert.ok(reportHeadPlausible(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), xml])));
  assert.ok(!reportHeadPlausible(randomBytes(1024 * 1024)));
  assert.ok(!reportHeadPlausible(Buffer.from('%PDF-1.7 binary')));
  // The same line as parseAggregateReport's: a prolog of 4,000 characters (3 bytes each) still
  // lets <feedback be seen; one of 4,100 does not, and the report is then not read either way.
  for (const [n, seen] of [
    [4000, true],
    [4100, false],
  ] as const) {
    const doc = Buffer.concat([Buffer.from(`<!--${'€'.repeat(n - 7)}-->`), xml.subarray(xml.indexOf('<feedback'))]);
    assert.equal(reportHeadPlausible(doc), seen);
    assert.equal(parseAggregateReport(doc) !== null, seen);
  }
});

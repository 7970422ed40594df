// lib/inflate on bombs (a zip whose headers claim 1,000 bytes for 2 GiB of zeros, a gzip of the
// same) and on ordinary archives: the limit is counted on the bytes that come out, at the byte,
// whatever the archive declares, and the event loop stays free meanwhile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { deflateRawSync, gzipSync, inflateRawSync } from 'node:zlib';
import { strToU8, zipSync } from 'fflate';
import { gunzipLimited, unzipLimited } from '../../src/lib/inflate.js';
import { watchLoop } from '../helpers/loop-watch.js';
import { deflatedZeros, gzipOf, zipWithLyingHeader } from '../helpers/zip-bomb.js';

const fixture = (name: string) => fs.readFileSync(new URL(`../fixtures/dmarc/${name}`, import.meta.url));
const MB = 1024 * 1024;
// Inflating 50 MB synchronously takes about 1 s on this 2-core machine; asynchronously the loop is
// held 3-20 ms at a time. 250 ms tells the two apart under load.
const STALL_MS = 250;

/** Runs `fn` while watching how long the event loop is held at a time. */
async function worstStall<T>(fn: () => Promise<T>): Promise<{ value: T; stall: number; elapsed: number }> {
  const loop = watchLoop();
  const t0 = performance.now();
  const value = await fn().finally(() => loop.stop());
  const { worstBusyMs } = loop.stop();
  return { value, stall: worstBusyMs, elapsed: performance.now() - t0 };
}

test('the watch sees work that holds the event loop: 400 ms of CPU in one callback', async () => {
  // The control: the same measure must fail the asserts below when the loop is held, however
  // loaded the machine (the work is counted in CPU time, not wall time).
  const { stall } = await worstStall(async () => {
    await new Promise((r) => setTimeout(r, 20));
    const start = process.cpuUsage();
    let spin = 0;
    while (process.cpuUsage(start).user < 400_000) spin += inflateRawSync(deflateRawSync(Buffer.alloc(1024))).length;
    assert.ok(spin > 0);
  });
  assert.ok(stall >= STALL_MS, `400 ms of work in one callback showed as ${stall.toFixed(0)} ms`);
});

test('a zip whose header claims 1,000 bytes for 2 GiB is stopped at the limit, off the event loop', async () => {
  const bomb = zipWithLyingHeader('report.xml', deflatedZeros(2 * 1024 ** 3));
  const { value, stall, elapsed } = await worstStall(() => unzipLimited(bomb, { maxBytes: 50 * MB }));
  assert.deepEqual(value, { ok: false, reason: 'too_large', detail: `inflates past ${50 * MB} bytes` });
  assert.ok(stall < STALL_MS, `the event loop stalled for ${stall.toFixed(0)} ms`);
  assert.ok(elapsed < 10_000, `${elapsed.toFixed(0)} ms: it went on past the limit`);
});

test('a gzip of 2 GiB of zeros is stopped at the limit, off the event loop', async () => {
  const bomb = gzipOf(deflatedZeros(2 * 1024 ** 3));
  const { value, stall } = await worstStall(() => gunzipLimited(bomb, { maxBytes: 50 * MB }));
  assert.equal(value.ok, false);
  assert.equal(!value.ok && value.reason, 'too_large');
  assert.ok(stall < STALL_MS, `the event loop stalled for ${stall.toFixed(0)} ms`);
});

test('the limit counts the bytes that come out, to the byte, for deflated and stored entries alike', async () => {
  const data = strToU8('x'.repeat(1000));
  for (const level of [0, 6] as const) {
    const zip = zipSync({ 'a.xml': data }, { level });
    assert.equal((await unzipLimited(zip, { maxBytes: 1000 })).ok, true);
    assert.equal((await unzipLimited(zip, { maxBytes: 999 })).ok, false);
  }
  // two entries share one budget
  const two = zipSync({ 'a.xml': data, 'b.xml': data });
  assert.equal((await unzipLimited(two, { maxBytes: 2000 })).ok, true);
  assert.deepEqual(await unzipLimited(two, { maxBytes: 1999 }), {
    ok: false,
    reason: 'too_large',
    detail: 'inflates past 1999 bytes',
  });
  assert.equal((await gunzipLimited(gzipSync(Buffer.from(data)), { maxBytes: 1000 })).ok, true);
  assert.equal((await gunzipLimited(gzipSync(Buffer.from(data)), { maxBytes: 999 })).ok, false);
});

test('a header that declares more than the entry holds changes nothing: the real bytes are returned', async () => {
  const r = await unzipLimited(zipWithLyingHeader('a.xml', deflateRawSync('<feedback/>'), 4e9), { maxBytes: 100 });
  assert.deepEqual(r.ok && r.files.map((f) => [f.name, f.data.toString()]), [['a.xml', '<feedback/>']]);
});

test('only accepted entries are inflated, and more of them than allowed refuse the archive', async () => {
  const zip = zipSync({ 'a.xml': strToU8('<a/>'), 'b.txt': strToU8('no'), 'c.XML': strToU8('<c/>') });
  const r = await unzipLimited(zip, { maxBytes: 100, accept: (n) => /\.xml$/i.test(n) });
  assert.deepEqual(r.ok && r.files.map((f) => f.name), ['a.xml', 'c.XML']);
  const many = zipSync(Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`${i}.xml`, strToU8('<a/>')])));
  assert.deepEqual(await unzipLimited(many, { maxBytes: 1000, maxFiles: 20 }), {
    ok: false,
    reason: 'too_many_files',
    detail: '21 entries; at most 20 are read',
  });
});

test('the DMARC fixtures inflate to their XML; broken archives are refused as corrupt', async () => {
  const zip = await unzipLimited(fixture('outlook.zip'), { maxBytes: MB });
  assert.ok(zip.ok && zip.files.length === 1 && zip.files[0].data.toString().includes('<feedback'));
  const gz = await gunzipLimited(fixture('yahoo.xml.gz'), { maxBytes: MB });
  assert.ok(gz.ok && gz.files[0].data.toString().includes('<feedback'));
  assert.equal((await unzipLimited(Buffer.from('PK\u0003\u0004 not really a zip'), { maxBytes: MB })).ok, false);
  assert.equal((await unzipLimited(fixture('outlook.zip').subarray(0, 200), { maxBytes: MB })).ok, false);
  assert.equal((await gunzipLimited(fixture('yahoo.xml.gz').subarray(0, 40), { maxBytes: MB })).ok, false);
});

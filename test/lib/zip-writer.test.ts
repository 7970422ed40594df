// The streaming zip writer (lib/zip-writer.ts) read back by real unzippers: fflate's and, where
// installed, Info-ZIP's `unzip -t` (CRCs checked). Empty, small, incompressible and UTF-8-named
// entries, data arriving in many small chunks, and an entry whose source fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unzipSync, strFromU8 } from 'fflate';
import { zipStream, type ZipEntry } from '../../src/lib/zip-writer.js';

async function collect(gen: AsyncIterable<Buffer>): Promise<Buffer> {
  const out: Buffer[] = [];
  for await (const b of gen) out.push(b);
  return Buffer.concat(out);
}

async function* trickle(buf: Buffer, size: number) {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

const unzipInstalled = (() => {
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

test('entries come back byte for byte through fflate and unzip -t', async () => {
  const random = randomBytes(1_200_000); // incompressible, over several deflate blocks
  const text = Buffer.from('hello zip\n'.repeat(10_000));
  const entries: ZipEntry[] = [
    { name: 'privacy-export.json', data: [Buffer.from('{"a":1}')] },
    { name: 'empty.txt', data: [] },
    { name: 'attachments/sent/x/1-random.bin', data: trickle(random, 7_777) },
    { name: 'attachments/received/y/1-Résumé ünïcode.txt', data: trickle(text, 1000) },
  ];
  const zip = await collect(zipStream(entries));
  const files = unzipSync(new Uint8Array(zip));
  assert.deepEqual(Object.keys(files).sort(), entries.map((e) => e.name).sort());
  assert.equal(strFromU8(files['privacy-export.json']), '{"a":1}');
  assert.equal(files['empty.txt'].length, 0);
  assert.ok(Buffer.from(files['attachments/sent/x/1-random.bin']).equals(random));
  assert.ok(Buffer.from(files['attachments/received/y/1-Résumé ünïcode.txt']).equals(text));
  assert.ok(zip.length < random.length + text.length / 10, 'text was deflated');
  if (unzipInstalled) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zip-writer-'));
    try {
      const file = path.join(dir, 'a.zip');
      fs.writeFileSync(file, zip);
      const out = execFileSync('unzip', ['-t', file], { encoding: 'utf8' });
      assert.match(out, /No errors detected/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a zip with no entries is still a valid archive', async () => {
  const zip = await collect(zipStream([]));
  assert.equal(zip.length, 22);
  assert.deepEqual(unzipSync(new Uint8Array(zip)), {});
});

test('a failing entry source fails the stream instead of writing a truncated entry', async () => {
  async function* broken() {
    yield Buffer.from('start');
    throw new Error('blob gone');
  }
  await assert.rejects(collect(zipStream([{ name: 'a', data: broken() }])), /blob gone/);
});

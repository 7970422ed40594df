// The inbound spool: a message past 1 MB goes to a file, and Spool.streams reads that file once
// for several readers at the same time (the raw copy, the parser, the authentication).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { Spool } from '../../src/inbound/spool.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-spool-test-'));
const spoolOf = (bytes: Buffer) => {
  const s = new Spool(dir);
  for (let i = 0; i < bytes.length; i += 64 * 1024) s.write(bytes.subarray(i, i + 64 * 1024));
  return s;
};
const readAll = async (r: Readable) => {
  const out: Buffer[] = [];
  for await (const c of r) out.push(c as Buffer);
  return Buffer.concat(out);
};
const within = <T>(p: Promise<T>, ms = 10_000) =>
  Promise.race([p, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`no end within ${ms} ms`)), ms))]);

test('three readers of a spooled 3 MB message each get every byte, from one file read', async () => {
  const bytes = randomBytes(3 * 1024 * 1024);
  const s = spoolOf(bytes);
  assert.equal(s.buffer(), undefined, 'past 1 MB the message is in a file');
  const got = await within(Promise.all(s.streams(3).map(readAll)));
  for (const g of got) assert.ok(g.equals(bytes));
  s.dispose();
  assert.deepEqual(fs.readdirSync(dir), []);
});

test('a reader that stops early and is destroyed does not hold up the others', async () => {
  const bytes = randomBytes(3 * 1024 * 1024);
  const s = spoolOf(bytes);
  const [quitter, a, b] = s.streams(3);
  quitter.once('data', () => quitter.destroy()); // one chunk, then gone (as a failed authentication)
  const [ga, gb] = await within(Promise.all([readAll(a), readAll(b)]));
  assert.ok(ga.equals(bytes) && gb.equals(bytes));
  s.dispose();
});

test('disposing of the spool while it is read (the client went away) lets its readers finish, as with a file read per reader', async () => {
  const bytes = randomBytes(3 * 1024 * 1024);
  const s = spoolOf(bytes);
  const [slow, other] = s.streams(2);
  slow.once('data', () => s.dispose());
  const got = await within(Promise.all([readAll(slow), readAll(other)]));
  for (const g of got) assert.ok(g.equals(bytes));
  assert.deepEqual(fs.readdirSync(dir), [], 'the file is gone already');
});

test('a message under 1 MB stays in memory and each reader gets its own copy of the stream', async () => {
  const bytes = randomBytes(200 * 1024);
  const s = spoolOf(bytes);
  assert.ok(s.buffer()?.equals(bytes));
  const got = await Promise.all(s.streams(2).map(readAll));
  for (const g of got) assert.ok(g.equals(bytes));
  s.dispose();
});

// The pattern erasures and exports match an address with (privacy/address-pattern.ts), run by
// PostgreSQL itself (~*), since that is where it is used; and the keyed hash of erased addresses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { addressPattern } from '../../src/privacy/address-pattern.js';
import { AddressHasher } from '../../src/lib/address-hash.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase({ migrate: false });
});
after(() => db.drop());

const matches = async (text: string, addr: string) =>
  (await db.pool.query<{ m: boolean }>('SELECT $1 ~* $2 AS m', [text, addressPattern(addr)])).rows[0].m;
const redacted = async (text: string, addr: string) =>
  (await db.pool.query<{ r: string }>(`SELECT regexp_replace($1, $2, 'X', 'gi') AS r`, [text, addressPattern(addr)]))
    .rows[0].r;

test('finds the address in any case, plain, in a display form, in JSON and percent-encoded in a path', async () => {
  for (const text of [
    'bob@x.com',
    'Bob <BOB@X.COM>',
    '{"to":["bob@x.com"]}',
    '/contacts/bob%40x.com',
    'write to bob@x.com.',
    'mailto:bob@x.com?subject=hi',
  ])
    assert.equal(await matches(text, ' Bob@X.com '), true, text);
});

test('leaves longer addresses and other domains alone', async () => {
  for (const text of ['jimbob@x.com', 'bob@x.com.au', 'bob@x.community', 'bob.smith@x.com', 'bob@xx.com', 'bob@x-com'])
    assert.equal(await matches(text, 'bob@x.com'), false, text);
});

test('treats the characters of an address literally (no pattern in it)', async () => {
  assert.equal(await matches('a+b@x.com', 'a+b@x.com'), true);
  assert.equal(await matches('aab@x.com', 'a+b@x.com'), false);
  assert.equal(await matches('a.b@xycom', 'a.b@x.com'), false);
  assert.equal(await redacted('to a+b@x.com and jim+a+b@x.com', 'a+b@x.com'), 'to X and jim+a+b@x.com');
});

test('the keyed hash: one per normalised address, different under another secret', () => {
  const h = new AddressHasher('secret one');
  assert.equal(h.hash(' Ann@Example.org '), h.hash('ann@example.org'));
  assert.match(h.hash('ann@example.org'), /^[0-9a-f]{64}$/);
  assert.notEqual(h.hash('ann@example.org'), new AddressHasher('secret two').hash('ann@example.org'));
  assert.notEqual(h.hash('ann@example.org'), h.hash('anne@example.org'));
});

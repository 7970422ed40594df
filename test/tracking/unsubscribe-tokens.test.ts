import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  distinctRecipients,
  MAILTO_LOCAL_PREFIX,
  TOKEN_LENGTH,
  UnsubscribeSigner,
} from '../../src/tracking/unsubscribe-tokens.js';

const signer = new UnsubscribeSigner('instance secret', 'https://mail.example.net/');
const id = '6f1c2a9e-0b7d-4c3e-9a51-2d8f0e4b7c13';

test('a token names its email and recipient, is 45 lowercase base32 characters, and reads the same in any case', () => {
  const t = signer.token(id, 3);
  assert.equal(t.length, TOKEN_LENGTH);
  assert.match(t, /^[a-z2-7]{45}$/);
  assert.deepEqual(signer.verify(t), { emailId: id, ordinal: 3 });
  assert.deepEqual(signer.verify(t.toUpperCase()), { emailId: id, ordinal: 3 });
  assert.notEqual(signer.token(id, 4), t, 'per recipient');
  assert.notEqual(signer.token('6f1c2a9e-0b7d-4c3e-9a51-2d8f0e4b7c14', 3), t, 'per message');
});

test('the mailto local part fits 64 octets and the URL sits on the public base', () => {
  const local = signer.mailto(id, 149, 'send.example.com').split('@')[0];
  assert.ok(local.startsWith(MAILTO_LOCAL_PREFIX));
  assert.ok(local.length <= 64, `${local.length}`);
  assert.match(signer.url(id, 0), /^https:\/\/mail\.example\.net\/u\/[a-z2-7]{45}$/);
});

test('every altered character, another secret, or a wrong length is refused', () => {
  const t = signer.token(id, 0);
  for (let i = 0; i < t.length; i++) {
    const c = t[i] === 'a' ? 'b' : 'a';
    assert.equal(signer.verify(t.slice(0, i) + c + t.slice(i + 1)), null, `position ${i}`);
  }
  assert.equal(new UnsubscribeSigner('another secret', 'https://x').verify(t), null);
  assert.equal(signer.verify(t.slice(1)), null);
  assert.equal(signer.verify(`${t}a`), null);
  assert.equal(signer.verify('0'.repeat(45)), null);
  assert.throws(() => signer.token(id, 256));
});

test('recipients are numbered to, cc, bcc, lowercased, first occurrence', () => {
  assert.deepEqual(distinctRecipients(['A@x.test', 'b@x.test'], ['a@x.test', 'c@x.test'], ['B@X.TEST', 'd@x.test']), [
    'a@x.test',
    'b@x.test',
    'c@x.test',
    'd@x.test',
  ]);
});

test('headers: List-Unsubscribe with https and mailto, List-Unsubscribe-Post, and List-Id when given', () => {
  const h = signer.headers(id, 1, 'send.example.com', '"News" <news.example.com>');
  assert.deepEqual(
    h.map(([k]) => k),
    ['List-Id', 'List-Unsubscribe', 'List-Unsubscribe-Post'],
  );
  const t = signer.token(id, 1);
  assert.equal(
    h[1][1],
    `<https://mail.example.net/u/${t}>,\r\n <mailto:unsubscribe+${t}@send.example.com?subject=unsubscribe>`,
  );
  assert.equal(h[2][1], 'List-Unsubscribe=One-Click');
  assert.deepEqual(
    signer.headers(id, 1, 'send.example.com').map(([k]) => k),
    ['List-Unsubscribe', 'List-Unsubscribe-Post'],
  );
});

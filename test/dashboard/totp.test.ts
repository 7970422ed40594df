import { test } from 'node:test';
import assert from 'node:assert/strict';
import { base32Decode, base32Encode, hotp, otpauthUri, totp, verifyTotp } from '../../src/dashboard-auth/totp.js';
import { hashPassword, verifyPassword } from '../../src/dashboard-auth/password.js';

const RFC_SECRET = Buffer.from('12345678901234567890'); // RFC 6238 appendix B, SHA-1 seed

test('TOTP matches the RFC 6238 test vectors (SHA-1, 8 digits, 30 s steps)', () => {
  const vectors: [number, string][] = [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ];
  for (const [t, code] of vectors) assert.equal(hotp(RFC_SECRET, Math.floor(t / 30), 8), code, `T=${t}`);
  assert.equal(totp(base32Encode(RFC_SECRET), 59_000, 8), '94287082');
});

test('HOTP matches the RFC 4226 appendix D values', () => {
  const expected = ['755224', '287082', '359152', '969429', '338314', '254676', '287922', '162583', '399871', '520489'];
  expected.forEach((code, i) => assert.equal(hotp(RFC_SECRET, i), code));
});

test('base32 round-trips and ignores case, spaces and padding', () => {
  const b = Buffer.from('any bytes \x00\xff at all');
  assert.deepEqual(base32Decode(base32Encode(b)), b);
  assert.equal(base32Encode(Buffer.from('foobar')), 'MZXW6YTBOI');
  assert.deepEqual(base32Decode('mzxw 6ytb oi======'), Buffer.from('foobar'));
});

test('a code is accepted one step early or late, not two', () => {
  const secret = base32Encode(RFC_SECRET);
  const now = 1_700_000_000_000;
  const step = Math.floor(now / 30_000);
  assert.equal(verifyTotp(secret, totp(secret, now), now), step);
  assert.equal(verifyTotp(secret, totp(secret, now - 30_000), now), step - 1);
  assert.equal(verifyTotp(secret, totp(secret, now + 30_000), now), step + 1);
  assert.equal(verifyTotp(secret, totp(secret, now - 60_000), now), null);
  assert.equal(verifyTotp(secret, '12345', now), null);
  assert.equal(verifyTotp(secret, 'abcdef', now), null);
});

test('the otpauth URI carries issuer, account and secret for authenticator apps', () => {
  const u = new URL(otpauthUri('JBSWY3DPEHPK3PXP', 'ann@example.com'));
  assert.equal(u.protocol, 'otpauth:');
  assert.equal(u.host, 'totp');
  assert.equal(decodeURIComponent(u.pathname), '/Mailroom:ann@example.com');
  assert.equal(u.searchParams.get('secret'), 'JBSWY3DPEHPK3PXP');
  assert.equal(u.searchParams.get('period'), '30');
});

test('scrypt password hashes are salted per user and verify in constant time', async () => {
  const a = await hashPassword('correct horse battery');
  const b = await hashPassword('correct horse battery');
  assert.notEqual(a, b);
  assert.match(a, /^scrypt\$32768\$8\$3\$/);
  assert.equal(await verifyPassword('correct horse battery', a), true);
  assert.equal(await verifyPassword('correct horse battery!', a), false);
  assert.equal(await verifyPassword('anything', null), false);
});

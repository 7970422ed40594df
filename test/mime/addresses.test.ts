import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.js';
import { formatAddress, parseAddress, parseAddressList } from '../../src/mime/addresses.js';

function rejects(s: string, field = 'to'): AppError {
  try {
    parseAddress(s, field);
  } catch (err) {
    assert.ok(err instanceof AppError);
    assert.equal(err.code, 'validation_error');
    assert.equal(err.status, 422);
    assert.match(err.message, new RegExp(`^Invalid \`${field}\` field: `));
    return err;
  }
  assert.fail(`accepted ${JSON.stringify(s)}`);
}

test('parses a bare address and lowercases only the domain', () => {
  assert.deepEqual(parseAddress('John.Doe@Example.COM'), { address: 'John.Doe@example.com', domain: 'example.com' });
});

test('parses "Name <addr>" and "<addr>"', () => {
  assert.deepEqual(parseAddress('Acme Team <team@acme.io>'), {
    name: 'Acme Team',
    address: 'team@acme.io',
    domain: 'acme.io',
  });
  assert.deepEqual(parseAddress('<team@acme.io>'), { address: 'team@acme.io', domain: 'acme.io' });
});

test('gives the fields in one order, with or without a name', () => {
  assert.deepEqual(Object.keys(parseAddress('Acme Team <team@acme.io>')), ['name', 'address', 'domain']);
  assert.deepEqual(Object.keys(parseAddress('team@acme.io')), ['address', 'domain']);
  assert.deepEqual(Object.keys(parseAddress('"" <team@acme.io>')), ['address', 'domain']);
  assert.deepEqual(Object.keys(parseAddress('   <team@acme.io>')), ['address', 'domain']);
});

test('parses a quoted display name with commas, escapes and angle brackets', () => {
  assert.equal(parseAddress('"Doe, John" <j@x.com>').name, 'Doe, John');
  assert.equal(parseAddress('"A \\"B\\" <C>" <j@x.com>').name, 'A "B" <C>');
});

test('keeps a unicode display name as is', () => {
  assert.equal(parseAddress('Zoë Ünïcode 😀 <z@x.com>').name, 'Zoë Ünïcode 😀');
});

test('accepts the dot-atom special characters and a quoted local part', () => {
  assert.equal(parseAddress("o'brien+tag_x!#$%&*=?^`{|}~-@x.com").address, "o'brien+tag_x!#$%&*=?^`{|}~-@x.com");
  assert.equal(parseAddress('"john doe"@x.com').address, '"john doe"@x.com');
  assert.equal(parseAddress('"a@b"@x.com').domain, 'x.com');
});

test('converts IDN domains to punycode', () => {
  assert.deepEqual(parseAddress('Müller <m@Bücher.DE>'), {
    name: 'Müller',
    address: 'm@xn--bcher-kva.de',
    domain: 'xn--bcher-kva.de',
  });
  assert.equal(parseAddress('x@例え.jp').domain, 'xn--r8jz45g.jp');
});

test('rejects malformed local parts', () => {
  for (const s of [
    '.a@x.com',
    'a.@x.com',
    'a..b@x.com',
    'a b@x.com',
    'a"b@x.com',
    'ünï@x.com',
    `${'a'.repeat(65)}@x.com`,
    '@x.com',
    'x.com',
    'a@',
  ])
    rejects(s);
});

test('rejects malformed domains', () => {
  const cases: [string, RegExp][] = [
    ['a@localhost', /must contain a dot/],
    ['a@[127.0.0.1]', /IP address literals/],
    ['a@127.0.0.1', /IP addresses/],
    ['a@0x7f.1', /IP addresses/],
    ['a@-x.com', /label/],
    ['a@x-.com', /label/],
    ['a@x..com', /label|hostname/],
    ['a@x_y.com', /label|hostname/],
    [`a@${'a'.repeat(64)}.com`, /label|hostname/],
    [`a@${Array(64).fill('abcd').join('.')}.com`, /longer than 253|hostname/],
    ['a@x.com.', /label/],
    ['a@x,y.com', /not allowed/],
  ];
  for (const [s, why] of cases) assert.match(rejects(s).message, why, s);
});

test('rejects broken name-addr forms', () => {
  for (const s of [
    'Name <a@x.com',
    'Name a@x.com>',
    '"Unclosed <a@x.com>',
    'A <b> <a@x.com>',
    '"Q" junk <a@x.com>',
    'a@x.com, b@x.com',
    '',
  ])
    rejects(s);
});

test('names the field in the error', () => {
  assert.match(rejects('nope', 'reply_to').message, /^Invalid `reply_to` field: "nope" is not a valid email address/);
});

test('rejects line breaks and control characters before anything else', () => {
  for (const s of [
    'a@x.com\r\nBcc: e@vil.com',
    'Name\n <a@x.com>',
    'a@x.com\u0000',
    'N\u2028 <a@x.com>',
    'a@x.com\u0085',
  ]) {
    assert.match(rejects(s).message, /line breaks and control characters/);
  }
});

test('parseAddressList takes a string or an array of strings', () => {
  assert.equal(parseAddressList('a@x.com').length, 1);
  assert.deepEqual(parseAddressList(['a@x.com', 'B <b@Y.com>'], 'cc').map(formatAddress), ['a@x.com', 'B <b@y.com>']);
  assert.throws(() => parseAddressList([1], 'cc'), /Invalid `cc` field: must be an email address or an array/);
  assert.throws(() => parseAddressList({ email: 'a@x.com' }, 'bcc'), /Invalid `bcc` field/);
});

test('formatAddress quotes names that hold specials', () => {
  assert.equal(formatAddress({ name: 'Doe, John', address: 'j@x.com', domain: 'x.com' }), '"Doe, John" <j@x.com>');
  assert.equal(formatAddress({ name: 'Say "hi"', address: 'j@x.com', domain: 'x.com' }), '"Say \\"hi\\"" <j@x.com>');
  assert.equal(formatAddress({ name: 'Zoë', address: 'j@x.com', domain: 'x.com' }), 'Zoë <j@x.com>');
});

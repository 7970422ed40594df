// relaxedBody (RFC 6376 3.4.4) against the regex version it replaced, kept below as the oracle,
// on a seeded fuzz corpus, and on hand-checked examples.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { relaxedBody } from '../../src/mta/dkim.js';
import { prng } from '../helpers/prng.js';

function oracle(body: Buffer): Buffer {
  let s = body
    .toString('binary')
    .replace(/[ \t]+\r\n/g, '\r\n')
    .replace(/[ \t]+/g, ' ');
  s = s.replace(/[ \t]+$/, '').replace(/(\r\n)*$/, '');
  return Buffer.from(s.length ? `${s}\r\n` : '', 'binary');
}

const PIECES = [
  'a',
  'word',
  'Lorem ipsum dolor',
  ' ',
  '  ',
  '\t',
  ' \t ',
  '\t\t',
  '.',
  '=20',
  '\r',
  '\n',
  '\r\n',
  '\r\n\r\n',
  '\r\r\n',
  '\n\r',
  ' \r\n',
  '\t\r\n',
  ' \r',
  ' \n',
  '\r\n ',
  '\r\n.',
  '\xe9',
  '\xc3\xa9',
  '\xf0\x9f\x98\x80',
  '\x00',
  '\x0b',
  '\x0c',
];

function body(rnd: () => number): Buffer {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  let s = '';
  const count = Math.floor(rnd() * 80);
  for (let i = 0; i < count; i++) {
    const r = rnd();
    if (r < 0.8) s += pick(PIECES);
    else if (r < 0.9) s += 'x'.repeat(70 + Math.floor(rnd() * 1000));
    else s += pick([' ', '\t']).repeat(1 + Math.floor(rnd() * 6)) + pick(['', '\r\n', '\r\n\r\n', 'y']);
  }
  const end = rnd();
  if (end < 0.2) s += '\r\n'.repeat(1 + Math.floor(rnd() * 4));
  else if (end < 0.3) s += pick([' ', '\t', ' \t', '\r\n \r\n', '\r\n\t']);
  const b = Buffer.from(s, 'binary');
  // at a random offset in a larger buffer, as a message body is
  const off = Math.floor(rnd() * 8);
  const c = Buffer.alloc(off + b.length + 4, 0x20);
  b.copy(c, off);
  return c.subarray(off, off + b.length);
}

test('canonicalizes as the regex version did on 8,000 fuzzed bodies, and leaves the input as it was', () => {
  const rnd = prng(6376);
  for (let i = 0; i < 8000; i++) {
    const input = body(rnd);
    const before = Buffer.from(input);
    assert.deepEqual(relaxedBody(input), oracle(input), `body ${i}: ${JSON.stringify(input.toString('binary'))}`);
    assert.deepEqual(input, before);
  }
});

test('canonicalizes as the regex version did on any bytes', () => {
  const rnd = prng(3);
  const common = [0x20, 0x09, 0x0d, 0x0a, 0x41];
  for (let i = 0; i < 4000; i++) {
    const b = Buffer.alloc(Math.floor(rnd() * 200));
    for (let j = 0; j < b.length; j++)
      b[j] = rnd() < 0.8 ? common[Math.floor(rnd() * common.length)] : Math.floor(rnd() * 256);
    assert.deepEqual(relaxedBody(b), oracle(b), b.toString('hex'));
  }
});

test('canonicalizes by hand-checked examples', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['\r\n', ''],
    ['\r\n\r\n\r\n', ''],
    [' \t \r\n\r\n', ''],
    // RFC 6376 3.4.5
    [' C \r\nD \t E\r\n\r\n\r\n', ' C\r\nD E\r\n'],
    ['a', 'a\r\n'],
    ['a\r\n', 'a\r\n'],
    ['a  b\t\tc \t', 'a b c\r\n'],
    ['a\r\n \r\n\t\r\n', 'a\r\n'],
    ['a\r\n\r\nb\r\n\r\n', 'a\r\n\r\nb\r\n'],
    // a bare CR or LF is not a line break
    ['a \rb', 'a \rb\r\n'],
    ['a \nb\n', 'a \nb\n\r\n'],
    ['x\r\r\n', 'x\r\r\n'],
    ['x \r', 'x \r\r\n'],
  ];
  for (const [input, expected] of cases) {
    assert.equal(relaxedBody(Buffer.from(input, 'binary')).toString('binary'), expected, JSON.stringify(input));
    assert.equal(oracle(Buffer.from(input, 'binary')).toString('binary'), expected, JSON.stringify(input));
  }
});

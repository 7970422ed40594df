// src/mime/qp.ts against what it replaces: nodemailer's qp.wrap(qp.encode(bytes), 76) and the
// former 7bit check of mime-fast's textPart (kept below as the oracle), on a seeded fuzz corpus.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as mimeFuncs from 'nodemailer/lib/mime-funcs/index.js';
import * as qp from 'nodemailer/lib/qp/index.js';
import { encodeQuotedPrintable, fitsSevenBit, fitsSevenBitText } from '../../src/mime/qp.js';
import { writeSimpleMessage } from '../../src/mime/mime-fast.js';
import { prng } from '../helpers/prng.js';

const oracle = (bytes: Uint8Array) => qp.wrap(qp.encode(Buffer.from(bytes)), 76);
// mime-fast's textPart before src/mime/qp.ts: [Content-Transfer-Encoding, content].
const oldSevenBit = (crlf: string) => /^[\x20-\x7e\r\n\t]*$/.test(crlf) && !mimeFuncs.hasLongerLines(crlf, 76);
function oldTextPart(body: string): [string, string] {
  const crlf = body.replace(/\r?\n/g, '\r\n');
  return oldSevenBit(crlf) ? ['7bit', crlf] : ['quoted-printable', qp.wrap(qp.encode(Buffer.from(crlf, 'utf8')), 76)];
}

const PIECES = [
  'a',
  'Z',
  '0',
  'word',
  'Lorem ipsum',
  ' ',
  '  ',
  '\t',
  ' \t',
  '=',
  '==',
  '=3D',
  '.',
  '..',
  ',',
  '!',
  '?',
  '<p>',
  'href="x"',
  '\r',
  '\n',
  '\r\n',
  '\r\n\r\n',
  '\r\r\n',
  '\n\r',
  '\r\n.',
  ' \r\n',
  '\t\r\n',
  'é',
  'ß',
  '€',
  '你',
  '😀',
  '👍🏽',
  '\u00a0',
  '\x00',
  '\x1b',
  '\x7f',
  '\ud800',
];
const NON_ASCII = ['é', '€', '你', '😀', '👍🏽'];

/** Text mixing the pieces with runs of letters around the wrap length and past 998. */
function text(rnd: () => number): string {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  let s = '';
  const count = Math.floor(rnd() * 60);
  for (let i = 0; i < count; i++) {
    const r = rnd();
    if (r < 0.65) s += pick(PIECES);
    else if (r < 0.85) s += 'x'.repeat(60 + Math.floor(rnd() * 20)) + pick(PIECES);
    else if (r < 0.9) s += 'y'.repeat(998 + Math.floor(rnd() * 10));
    else if (r < 0.97) s += pick(NON_ASCII).repeat(1 + Math.floor(rnd() * 40));
    else s += ' '.repeat(1 + Math.floor(rnd() * 5)) + pick(['', '\r\n', '\n']);
  }
  return rnd() < 0.1 ? s + '\r\n'.repeat(1 + Math.floor(rnd() * 3)) : s;
}

/** Any bytes, weighted to what the wrap looks at: UTF-8 lead and continuation bytes, CR, LF, '=', spaces. */
function bytes(rnd: () => number): Buffer {
  const b = Buffer.alloc(Math.floor(rnd() * 400));
  const common = [0x80, 0xbf, 0xc3, 0xe2, 0xf0, 0x0a, 0x0d, 0x20, 0x09, 0x3d, 0x2e, 0x41];
  for (let i = 0; i < b.length; i++)
    b[i] = rnd() < 0.5 ? common[Math.floor(rnd() * common.length)] : Math.floor(rnd() * 256);
  return b;
}

/** The same bytes at a random offset in a larger buffer (the encoder reads 4 aligned bytes at a time). */
function shifted(rnd: () => number, b: Buffer): Buffer {
  const off = Math.floor(rnd() * 4);
  const c = Buffer.alloc(b.length + off + Math.floor(rnd() * 4));
  b.copy(c, off);
  return c.subarray(off, off + b.length);
}

test('encodes as nodemailer qp.wrap(qp.encode(), 76) on 6,000 fuzzed texts and 4,000 fuzzed byte strings', () => {
  const rnd = prng(20240611);
  for (let i = 0; i < 6000; i++) {
    const input = shifted(rnd, Buffer.from(text(rnd), 'utf8'));
    assert.equal(encodeQuotedPrintable(input), oracle(input), `text ${i}: ${JSON.stringify(input.toString('utf8'))}`);
  }
  for (let i = 0; i < 4000; i++) {
    const input = shifted(rnd, bytes(rnd));
    assert.equal(encodeQuotedPrintable(input), oracle(input), `bytes ${i}: ${input.toString('hex')}`);
  }
});

test('encodes a UTF-8 character at every column around the wrap length as nodemailer does', () => {
  for (const ch of ['é', '€', '😀', '=', ' ', '\t', '.', '\r\n', '\n', '\r']) {
    for (let col = 60; col <= 80; col++) {
      for (const tail of ['', 'b', 'bbbbbbbbbb', ch.repeat(30)]) {
        const input = Buffer.from('a'.repeat(col) + ch + tail, 'utf8');
        assert.equal(encodeQuotedPrintable(input), oracle(input), JSON.stringify(input.toString()));
      }
    }
  }
});

test('keeps to nodemailer on invalid UTF-8: long runs of continuation bytes, lead bytes without them', () => {
  for (const prefix of ['', 'a', 'ab', 'abc', 'a'.repeat(40), 'a'.repeat(70)]) {
    for (const run of [[0x80], [0xbf], [0xc3], [0xe2, 0x82], [0xc3, 0x28], [0x80, 0x41]]) {
      for (const times of [1, 5, 25, 26, 30, 100]) {
        const input = Buffer.concat([
          Buffer.from(prefix),
          Buffer.from(Array.from({ length: times }, () => run).flat()),
        ]);
        assert.equal(encodeQuotedPrintable(input), oracle(input), input.toString('hex'));
      }
    }
  }
});

test('keeps to nodemailer on large inputs and on ones that make a soft break every few bytes', () => {
  const pathological = (unit: number[], times: number) => Buffer.from(Array.from({ length: times }, () => unit).flat());
  const inputs = [
    Buffer.from('é😀'.repeat(60_000), 'utf8'), // 360 KB, nearly all escapes
    Buffer.from(
      `${'Lorem ipsum dolor sit amet. '.repeat(10_000)}
`.repeat(3),
      'utf8',
    ),
    pathological([0x61, ...Array(25).fill(0x80)], 500),
    pathological([0x0a, 0x61, ...Array(25).fill(0x80)], 500),
    pathological([0x0d, 0x0d, 0x0a, 0x0a, 0x61, ...Array(24).fill(0xbf)], 500),
  ];
  for (const input of inputs)
    assert.equal(encodeQuotedPrintable(input), oracle(input), input.subarray(0, 60).toString('hex'));
});

test('reads unaligned input and views on a larger buffer', () => {
  const rnd = prng(7);
  const pool = Buffer.from(text(rnd).repeat(3) + 'a'.repeat(300), 'utf8');
  for (let start = 0; start < 8; start++) {
    for (const end of [pool.length, pool.length - 1, start + 1, start + 77, start + 300]) {
      const input = pool.subarray(start, end);
      assert.equal(encodeQuotedPrintable(input), oracle(input));
      assert.equal(fitsSevenBit(input), oldSevenBit(input.toString('latin1')));
    }
  }
});

test('encodes by hand-checked examples', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['a=b', 'a=3Db'],
    ['trailing \r\nx\t', 'trailing=20\r\nx=09'],
    ['a \rb \nc', 'a=20\rb=20\nc'],
    ['.\r\n..\r\n', '.\r\n..\r\n'],
    ['é', '=C3=A9'],
    ['a'.repeat(76), 'a'.repeat(76)],
    ['a'.repeat(77), `${'a'.repeat(75)}=\r\naa`],
    // an escape is never split, nor is a UTF-8 sequence
    [`${'a'.repeat(74)}€`, `${'a'.repeat(74)}=\r\n=E2=82=AC`],
    [`${'a'.repeat(73)}€`, `${'a'.repeat(73)}=\r\n=E2=82=AC`],
    // a long line breaks after the last space or punctuation in its last 25 characters
    [`${'b'.repeat(60)} ${'c'.repeat(30)}`, `${'b'.repeat(60)} =\r\n${'c'.repeat(30)}`],
  ];
  for (const [input, expected] of cases) {
    const got = encodeQuotedPrintable(Buffer.from(input, 'utf8'));
    assert.equal(got, expected, JSON.stringify(input));
    assert.equal(got, oracle(Buffer.from(input, 'utf8')), JSON.stringify(input));
  }
});

test('decides 7bit as the former check did, lines of 76 and 77 and 128 KiB included', () => {
  const rnd = prng(99);
  const inputs = Array.from({ length: 4000 }, () => text(rnd));
  for (const n of [75, 76, 77])
    inputs.push('a'.repeat(n), `x\r\n${'a'.repeat(n)}\r\ny`, `x\r${'a'.repeat(n)}\ry`, `${'a'.repeat(n - 1)}\t`);
  const big = (n: number) => `${'a'.repeat(70)}\r\n`.repeat(Math.ceil(n / 72)).slice(0, n);
  inputs.push(big(131072), big(131073), 'plain\ttext\r\n', 'caf\u00e9');
  for (const s of inputs) {
    const crlf = s.replace(/\r?\n/g, '\r\n');
    assert.equal(
      fitsSevenBit(Buffer.from(crlf, 'utf8')),
      oldTextPart(s)[0] === '7bit',
      JSON.stringify(s.slice(0, 200)),
    );
  }
});

test('writeSimpleMessage writes each part as the former textPart did', () => {
  const rnd = prng(4242);
  for (let i = 0; i < 1500; i++) {
    const t = text(rnd);
    const h = rnd() < 0.3 ? '' : text(rnd);
    const raw = writeSimpleMessage({
      from: { address: 'a@example.com', domain: 'example.com' },
      to: [{ address: 'b@example.com', domain: 'example.com' }],
      cc: [],
      replyTo: [],
      subject: 's',
      messageId: '<1@example.com>',
      date: new Date(0),
      text: t,
      html: h,
      headers: {},
    }).toString('latin1');
    const parts = [...(t ? [['text/plain', t]] : []), ...(h ? [['text/html', h]] : [])];
    if (!parts.length) parts.push(['text/plain', '']);
    const part = ([type, body]: string[]) => {
      const [cte, content] = oldTextPart(body);
      return [`Content-Type: ${type}; charset=utf-8`, `Content-Transfer-Encoding: ${cte}`, '', content];
    };
    const sep = raw.indexOf('\r\n\r\n');
    if (parts.length === 1) {
      const [ct, cte, , content] = part(parts[0]);
      assert.ok(raw.slice(0, sep).split('\r\n').includes(ct) && raw.slice(0, sep).split('\r\n').includes(cte));
      assert.equal(raw.slice(sep + 4), content, `message ${i}`);
    } else {
      const boundary = /boundary="([^"]+)"/.exec(raw)![1];
      assert.match(boundary, /^--_MR_[0-9a-f]{32}$/); // a UUID's 32 hex digits, no dashes
      const expected =
        parts.map((p) => `--${boundary}\r\n${part(p).join('\r\n')}\r\n`).join('') + `--${boundary}--\r\n`;
      assert.equal(raw.slice(sep + 4), expected, `message ${i}`);
    }
  }
});

test('fitsSevenBitText answers as fitsSevenBit on the UTF-8 bytes, for any string', () => {
  const rnd = prng(2027);
  const inputs = Array.from({ length: 4000 }, () => text(rnd).replace(/\r?\n/g, '\r\n'));
  const odd = [
    '\u0000',
    '\u001f',
    '\u007f',
    '\u0080',
    '\u00e9',
    '\ud800',
    '\udfff',
    '\ud83d\ude00',
    '\t',
    '\r',
    '\n',
    ' ',
  ];
  for (const c of odd)
    for (const n of [0, 1, 74, 75, 76, 77])
      inputs.push(
        `${'a'.repeat(n)}${c}`,
        `${c}${'a'.repeat(n)}`,
        `x\r\n${'a'.repeat(n)}${c}\r\ny`,
        `${'a'.repeat(n)}\r${c}`,
      );
  const big = (n: number) => `${'a'.repeat(70)}\r\n`.repeat(Math.ceil(n / 72)).slice(0, n);
  inputs.push('', big(131072), big(131073), `${big(131071)}\u00e9`);
  for (const s of inputs)
    assert.equal(fitsSevenBitText(s), fitsSevenBit(Buffer.from(s, 'utf8')), JSON.stringify(s.slice(0, 200)));
});

// mime-submission.ts plainAddress, the fast path for one plain address in From/To/Cc/Reply-To of a
// submitted simple message: wherever it answers, its answer must be addressparser's (which it
// replaces there). Fuzzed with strings built from address-ish pieces and random characters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import addressparser from 'nodemailer/lib/addressparser';
import { plainAddress } from '../../src/emails/mime-submission.js';

/** A small deterministic PRNG (mulberry32) so a failure can be replayed from its seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [
  'a',
  'b',
  'Zed',
  'x.y',
  '@',
  'host.test',
  '<',
  '>',
  ' ',
  '  ',
  '"',
  ',',
  ';',
  ':',
  '(',
  ')',
  '\\',
  "'",
  '+',
  '-',
  '_',
  '.',
  'é',
  '\t',
  '=?',
  'Name',
  "O'Brien",
  'Jean-Luc',
  '[1.2.3.4]',
];

test('plainAddress: the common forms are taken by the fast path', () => {
  for (const v of ['bench@bench.example', '<bench@bench.example>', 'Bench Mark <a.b+c@d-e.test>', "O'Brien <o@b.test>"])
    assert.deepEqual(plainAddress(v), addressparser(v), v);
  for (const v of [
    '"Quoted" <a@b.test>',
    'a@b.test, c@d.test',
    'Two  Spaces <a@b.test>',
    '<a@b.test',
    'a@b.test>',
    'Grp: a@b.test;',
    'a(comment)@b.test',
    '',
  ])
    assert.equal(plainAddress(v), undefined, v);
});

test('plainAddress agrees with addressparser wherever it answers (fuzz, 200,000 strings)', () => {
  const next = rng(27);
  let answered = 0;
  for (let i = 0; i < 200_000; i++) {
    const pick = () => PIECES[Math.floor(next() * PIECES.length)];
    const junk = () => (next() < 0.7 ? pick() : String.fromCharCode(32 + Math.floor(next() * 95)));
    let v = '';
    if (next() < 0.5) {
      const n = 1 + Math.floor(next() * 8);
      for (let j = 0; j < n; j++) v += junk();
    } else {
      // name? <local@domain>? with a random piece spliced in now and then
      const word = () => ['Ann', 'B', "O'Brien", 'Jean-Luc', 'x_y', 'a+b', junk()][Math.floor(next() * 7)];
      const name =
        next() < 0.5 ? '' : Array.from({ length: 1 + Math.floor(next() * 3) }, word).join(next() < 0.9 ? ' ' : '  ');
      const local = ['a', 'a.b', 'first+tag', 'x_y-z', junk() + 'q'][Math.floor(next() * 5)];
      const domain = ['b.test', 'host', 'sub.do-main.example', junk()][Math.floor(next() * 4)];
      const br = name !== '' || next() < 0.5;
      v = `${name}${name && next() < 0.9 ? ' ' : ''}${br ? '<' : ''}${local}@${domain}${br || next() < 0.1 ? '>' : ''}`;
      if (next() < 0.3) {
        const at = Math.floor(next() * (v.length + 1));
        v = v.slice(0, at) + junk() + v.slice(at);
      }
    }
    // valueOf trims field values before they get here
    v = v.trim();
    const fast = plainAddress(v);
    if (fast === undefined) continue;
    answered++;
    assert.deepEqual(fast, addressparser(v), `input ${JSON.stringify(v)}`);
  }
  assert.ok(answered > 20_000, `the fuzz reached the fast path only ${answered} times`);
});

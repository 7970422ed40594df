// Body encoding CPU per call, old against new in the same run, outputs checked equal first:
// mime-fast's textPart (LF to CRLF, 7bit check, quoted-printable; formerly a regex, nodemailer's
// hasLongerLines, qp.encode and qp.wrap, now src/mime/qp.ts) and DKIM relaxed body
// canonicalization (formerly regex replaces, now one pass in src/mta/dkim.ts). Bodies as in
// bench/broadcast-delivery.ts: ~3.5 KB html on one line and its ~3 KB text; also that text with
// non-ASCII words (quoted-printable, short lines).
// Run: node --import tsx bench/encode.ts [calls per round]
import * as mimeFuncs from 'nodemailer/lib/mime-funcs/index.js';
import * as qp from 'nodemailer/lib/qp/index.js';
import { htmlToText } from '../src/mime/html-to-text.js';
import { relaxedBody } from '../src/mta/dkim.js';
import { textPart, writeSimpleMessage } from '../src/mime/mime-fast.js';

const N = Number(process.argv[2] ?? 20_000);
const HTML =
  '<p>Hello {{{contact.first_name|there}}}</p>' +
  '<p>Lorem ipsum dolor sit amet.</p>'.repeat(100) +
  '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>';
const html = Array.from({ length: 1000 }, (_, i) =>
  HTML.replace('{{{contact.first_name|there}}}', `Name${i}`).replace(
    '{{{RESEND_UNSUBSCRIBE_URL}}}',
    `https://bench.example/u/${i.toString(36).repeat(8)}`,
  ),
);
const text = html.map(htmlToText);
const intl = text.map((t) => t.replace(/dolor/g, 'dolór').replace(/amet\./g, 'amet — 😀.'));
const raw = html.map((h, i) =>
  writeSimpleMessage({
    from: { address: 'news@bench.example', domain: 'bench.example' },
    to: [{ address: `p${i}@example.org`, domain: 'example.org' }],
    cc: [],
    replyTo: [],
    subject: 'Hi',
    messageId: `<${i}@bench.example>`,
    date: new Date(0),
    text: text[i],
    html: h,
    headers: {},
  }),
);
const bodies = raw.map((r) => r.subarray(r.indexOf('\r\n\r\n') + 4));
// html indented as templates often are: runs of spaces, so relaxedBody copies from the first one
const indented = bodies.map((b) => Buffer.from(b.toString('latin1').replace(/<p>/g, '\r\n    <p>'), 'latin1'));

// The former code, as it was in src/mime/mime-fast.ts and src/mta/dkim.ts.
function oldTextPart(contentType: string, body: string): string {
  const crlf = body.replace(/\r?\n/g, '\r\n');
  const plain = /^[\x20-\x7e\r\n\t]*$/.test(crlf) && !mimeFuncs.hasLongerLines(crlf, 76);
  const encoding = plain ? '7bit' : 'quoted-printable';
  const content = plain ? crlf : qp.wrap(qp.encode(Buffer.from(crlf, 'utf8')), 76);
  return `Content-Type: ${contentType}; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${content}`;
}
function oldRelaxedBody(body: Buffer): Buffer {
  let s = body
    .toString('binary')
    .replace(/[ \t]+\r\n/g, '\r\n')
    .replace(/[ \t]+/g, ' ');
  s = s.replace(/[ \t]+$/, '').replace(/(\r\n)*$/, '');
  return Buffer.from(s.length ? `${s}\r\n` : '', 'binary');
}
for (const [i, h] of html.entries()) {
  for (const [type, body] of [
    ['text/html', h],
    ['text/plain', text[i]],
    ['text/plain', intl[i]],
  ]) {
    if (textPart(type, body) !== oldTextPart(type, body)) throw new Error('outputs differ');
  }
  if (
    !relaxedBody(bodies[i]).equals(oldRelaxedBody(bodies[i])) ||
    !relaxedBody(indented[i]).equals(oldRelaxedBody(indented[i]))
  )
    throw new Error('outputs differ');
}

/** µs of CPU per call, the best of 5 rounds of N calls. */
function perCall<T>(inputs: T[], fn: (x: T) => { length: number }): number {
  let sink = 0;
  let best = Infinity;
  for (let round = 0; round < 6; round++) {
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < N; i++) sink += fn(inputs[i % inputs.length]).length;
    const cpu = process.cpuUsage(cpu0);
    if (round > 0) best = Math.min(best, (cpu.user + cpu.system) / N); // round 0 warms up
  }
  if (sink < 0) throw new Error('unreachable');
  return best;
}

const kb = (xs: { length: number }[]) => (Buffer.byteLength(String(xs[0])) / 1024).toFixed(1);
console.log(`Node ${process.version}, ${N} calls per round, µs of CPU per call (best of 5 rounds)`);
const rows: [string, number, number][] = [
  [
    `html part, ${kb(html)} KB, one line (quoted-printable)`,
    perCall(html, (h) => oldTextPart('text/html', h)),
    perCall(html, (h) => textPart('text/html', h)),
  ],
  [
    `text part, ${kb(text)} KB ASCII (7bit)`,
    perCall(text, (t) => oldTextPart('text/plain', t)),
    perCall(text, (t) => textPart('text/plain', t)),
  ],
  [
    `text part, ${kb(intl)} KB with non-ASCII (quoted-printable)`,
    perCall(intl, (t) => oldTextPart('text/plain', t)),
    perCall(intl, (t) => textPart('text/plain', t)),
  ],
  [
    `DKIM relaxed body, ${(bodies[0].length / 1024).toFixed(1)} KB (the html + text message)`,
    perCall(bodies, oldRelaxedBody),
    perCall(bodies, relaxedBody),
  ],
  [
    `DKIM relaxed body, ${(indented[0].length / 1024).toFixed(1)} KB (indented html)`,
    perCall(indented, oldRelaxedBody),
    perCall(indented, relaxedBody),
  ],
];
for (const [label, before, after] of rows)
  console.log(
    `${label.padEnd(58)} old ${before.toFixed(1).padStart(6)}  new ${after.toFixed(1).padStart(6)}  (${(before / after).toFixed(1)}x)`,
  );

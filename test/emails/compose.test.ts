import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser, type AddressObject } from 'mailparser';
import libmime from 'libmime';
import { composeMessage } from '../../src/emails/compose.js';
import { validateSendRequest, type SendRequest } from '../../src/emails/validate.js';
import { normalizeAttachments } from '../../src/emails/attachments.js';

const now = new Date('2025-06-04T12:00:00Z');
const date = new Date('2025-06-04T12:34:56Z');
const base = { from: 'Acme <hello@acme.com>', to: 'bob@example.com', subject: 'Hi', html: '<p>Hi</p>' };
const request = (body: Record<string, unknown>): SendRequest =>
  validateSendRequest({ ...base, ...body }, { allowAttachments: true, now });
const compose = (req: SendRequest, extraHeaders?: Record<string, string>) =>
  composeMessage(req, { messageIdDomain: 'acme.com', date, extraHeaders });
const addresses = (a: AddressObject | AddressObject[] | undefined) =>
  [a ?? []].flat().flatMap((o) => o.value.map((v) => [v.name, v.address]));
const headerBlock = (raw: Buffer) => raw.toString('latin1').split('\r\n\r\n')[0];

/** Every line ends in CRLF (no bare CR or LF) and fits the 998-octet limit of RFC 5322. */
function assertWellFormed(raw: Buffer) {
  const s = raw.toString('latin1');
  assert.doesNotMatch(s, /\r(?!\n)|(?<!\r)\n/, 'bare CR or LF');
  const longest = Math.max(...s.split('\r\n').map((l) => l.length));
  assert.ok(longest <= 998, `a line of ${longest} octets`);
}

test('round-trips addresses, subject, ids, date and bodies through a MIME parser', async () => {
  const req = request({
    from: '"Acme, Inc." <hello@acme.com>',
    to: ['Bob Müller <bob@bücher.de>', 'carol@example.com'],
    cc: 'Dan <dan@example.com>',
    reply_to: 'support@acme.com',
    subject: 'Grüße — 你好 😀 ready?',
    text: 'Plain body',
    html: '<p>HTML body</p>',
  });
  const { raw, messageId } = await compose(req);
  const mail = await simpleParser(raw);
  assert.match(messageId, /^<[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}@acme\.com>$/);
  assert.equal(mail.messageId, messageId);
  assert.equal(mail.date?.toISOString(), date.toISOString());
  assert.deepEqual(addresses(mail.from), [['Acme, Inc.', 'hello@acme.com']]);
  // mailparser shows IDNs in unicode; the wire carries punycode (checked on the raw header below).
  assert.deepEqual(addresses(mail.to), [
    ['Bob Müller', 'bob@bücher.de'],
    ['', 'carol@example.com'],
  ]);
  assert.deepEqual(addresses(mail.cc), [['Dan', 'dan@example.com']]);
  assert.deepEqual(addresses(mail.replyTo), [['', 'support@acme.com']]);
  assert.equal(mail.subject, 'Grüße — 你好 😀 ready?');
  assert.equal(mail.text?.trim(), 'Plain body');
  assert.equal((mail.html as string).trim(), '<p>HTML body</p>');
  assert.equal(mail.headers.get('mime-version'), '1.0');
  assert.match(headerBlock(raw), /^To: =\?UTF-8\?Q\?Bob_M=C3=BCller\?= <bob@xn--bcher-kva\.de>, carol@example\.com$/m);
  assert.match(headerBlock(raw), /^Subject: =\?UTF-8\?/m, 'a non-ASCII subject is encoded');
  assertWellFormed(raw);
});

test('never writes a Bcc header, whatever the recipients', async () => {
  const { raw } = await compose(request({ bcc: ['secret@example.com', 'Hidden <h@example.com>'] }));
  assert.doesNotMatch(raw.toString('latin1'), /^bcc:/im);
  assert.doesNotMatch(raw.toString('latin1'), /secret@example\.com|h@example\.com/);
  assert.equal((await simpleParser(raw)).bcc, undefined);
});

test('generates the text part from html when text is absent, and omits it when text is empty', async () => {
  const html = '<h1>Welcome</h1><p>Click <a href="https://acme.com/go">here</a></p>';
  const generated = await simpleParser((await compose(request({ html }))).raw);
  assert.equal(generated.text?.trim(), 'Welcome\n\nClick here (https://acme.com/go)');
  const { raw } = await compose(request({ html, text: '' }));
  assert.match(headerBlock(raw), /^Content-Type: text\/html/m);
  assert.doesNotMatch(raw.toString(), /text\/plain/);
});

test('sends text alone as a single text/plain part', async () => {
  const { raw } = await compose(request({ html: undefined, text: 'Only text, ünïcode' }));
  assert.match(headerBlock(raw), /^Content-Type: text\/plain; charset=utf-8/m);
  assert.equal((await simpleParser(raw)).text?.trim(), 'Only text, ünïcode');
});

test('nests text+html in alternative, inline images in related, and files in mixed', async () => {
  const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const req = request({
    text: 'see logo',
    html: '<p><img src="cid:logo"></p>',
    attachments: [
      { filename: 'logo.png', content: [...every], content_id: 'logo' },
      { filename: 'Résumé ünï.pdf', content: every.toString('base64') },
      {
        filename: 'data.json',
        content: JSON.parse(JSON.stringify(Buffer.from('{"a":1}'))),
        content_type: 'application/json',
      },
    ],
  });
  const { raw } = await compose(req);
  const s = raw.toString('latin1');
  assert.match(headerBlock(raw), /^Content-Type: multipart\/mixed/m);
  const order = [
    'multipart/mixed',
    'multipart/alternative',
    'text/plain',
    'multipart/related',
    'text/html',
    'image/png',
    'application/pdf',
    'application/json',
  ];
  const positions = order.map((t) => s.search(new RegExp(`Content-Type: ${t.replace('/', '\\/')}`)));
  assert.ok(
    positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1])),
    `MIME order ${positions}`,
  );
  const mail = await simpleParser(raw);
  const byName = Object.fromEntries(mail.attachments.map((a) => [a.filename, a]));
  assert.deepEqual(byName['logo.png'].content, every);
  assert.equal(byName['logo.png'].contentId, '<logo>');
  assert.equal(byName['logo.png'].contentDisposition, 'inline');
  assert.deepEqual(byName['Résumé ünï.pdf'].content, every);
  assert.equal(byName['Résumé ünï.pdf'].contentType, 'application/pdf');
  assert.equal(byName['Résumé ünï.pdf'].contentDisposition, 'attachment');
  assert.equal(byName['data.json'].content.toString(), '{"a":1}');
  assertWellFormed(raw);
});

test('keeps custom headers with their spelling, and lets Mailroom headers replace same-named ones', async () => {
  const req = request({
    headers: {
      'X-Entity-Ref-ID': 'abc',
      'x-lower': 'v',
      'List-Unsubscribe': '<https://user/u>',
      'X-Unicode': 'héllo wörld',
    },
  });
  const { raw } = await compose(req, { 'List-Unsubscribe': '<https://mailroom/u>', 'Feedback-ID': 'a:b:c' });
  const head = headerBlock(raw);
  assert.match(head, /^X-Entity-Ref-ID: abc$/m);
  assert.match(head, /^x-lower: v$/m);
  assert.match(head, /^Feedback-ID: a:b:c$/m);
  assert.equal(head.match(/^List-Unsubscribe:/gim)?.length, 1);
  const unicode = /^X-Unicode: (.*)$/m.exec(head)?.[1] ?? '';
  assert.equal(libmime.decodeWords(unicode), 'héllo wörld', 'non-ASCII values travel as encoded words');
  assert.match(head, /^List-Unsubscribe: <https:\/\/mailroom\/u>$/m);
  assert.ok(head.indexOf('From:') < head.indexOf('X-Entity-Ref-ID:'), 'custom headers follow the standard ones');
});

test('keeps every line within 998 octets for long bodies, names and subjects', async () => {
  const req = request({
    from: `"${'N'.repeat(256)}" <hello@acme.com>`,
    to: Array.from({ length: 50 }, (_, i) => `${'Recipient '.repeat(20)}${i} <r${i}@example.com>`),
    subject: 's'.repeat(988),
    text: 'x'.repeat(100_000),
    html: `<p>${'y'.repeat(100_000)}</p>`,
    headers: { 'X-Long': 'v'.repeat(990) },
  });
  const { raw } = await compose(req);
  assertWellFormed(raw);
  const mail = await simpleParser(raw);
  assert.equal(mail.subject, 's'.repeat(988));
  assert.equal(mail.text?.trim().length, 100_000);
});

test('writes bodies with CRLF line endings whatever the input used', async () => {
  const { raw } = await compose(request({ text: 'a\rb\nc\r\nd\u0000e', html: '<p>x\ry\nz</p>' }));
  assertWellFormed(raw);
  const mail = await simpleParser(raw);
  assert.equal(mail.text?.trim(), 'a\nb\nc\nd\u0000e');
  assert.equal((mail.html as string).trim(), '<p>x\ny\nz</p>');
});

test('refuses to compose unfetched path attachments or unsafe Mailroom headers', async () => {
  const req = { ...request({}), attachments: normalizeAttachments([{ path: 'https://x.io/a.pdf' }]) };
  await assert.rejects(compose(req), /resolve `path` attachments before composing/);
  await assert.rejects(compose(request({}), { 'X-Ours': 'a\r\nBcc: x@y.z' }), /unsafe extra header/);
});

// Header injection: every string field that reaches a header, fed every nasty string.
const NASTY = [
  '\r\nBcc: x@y.z',
  '\nBcc: x@y.z',
  '\rBcc: x@y.z',
  '\n',
  '\r',
  '\r\n',
  '\u0000',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u000b',
  '\u001b',
  'a\r\n\r\n<p>body smuggled</p>',
  '\r\nX-Injected: 1',
  'x\nX-Injected: 1',
  '%0d%0aBcc: x@y.z',
  '=?UTF-8?Q?a=0D=0ABcc:_x@y.z?=',
  'A'.repeat(100_000),
  `${'A '.repeat(5000)}\r\nBcc: x@y.z`,
];
const FIELDS: Record<string, (n: string) => Record<string, unknown>> = {
  'from name': (n) => ({ from: `${n} <hello@acme.com>` }),
  'from address': (n) => ({ from: `hello${n}@acme.com` }),
  'to name': (n) => ({ to: `Bob${n} <bob@example.com>` }),
  'to address': (n) => ({ to: [`bob@example.com${n}`] }),
  cc: (n) => ({ cc: `"C${n}" <c@example.com>` }),
  bcc: (n) => ({ bcc: `b${n}@example.com` }),
  reply_to: (n) => ({ reply_to: [`R ${n} <r@example.com>`] }),
  subject: (n) => ({ subject: `Hello ${n}` }),
  'header name': (n) => ({ headers: { [`X-A${n}`]: 'v' } }),
  'header value': (n) => ({ headers: { 'X-A': `v${n}` } }),
  'attachment filename': (n) => ({ attachments: [{ filename: `a${n}.txt`, content: 'aGk=' }] }),
  'attachment content_type': (n) => ({
    attachments: [{ filename: 'a.txt', content: 'aGk=', content_type: `text/plain${n}` }],
  }),
  'attachment content_id': (n) => ({ attachments: [{ filename: 'a.png', content: 'aGk=', content_id: `logo${n}` }] }),
  'tag name': (n) => ({ tags: [{ name: `t${n}`, value: 'v' }] }),
};

test('rejects header injection in every field with a 422, and never composes an injected header', async () => {
  let accepted = 0;
  for (const [field, build] of Object.entries(FIELDS)) {
    for (const nasty of NASTY) {
      const label = `${field} ← ${JSON.stringify(nasty.slice(0, 30))}`;
      let req: SendRequest;
      try {
        req = request(build(nasty));
      } catch (err) {
        assert.equal((err as { status?: number }).status, 422, `${label}: ${err}`);
        continue;
      }
      assert.doesNotMatch(nasty, /[\u0000-\u0008\u000a-\u001f\u007f\u0085\u2028\u2029]/, `${label} was accepted`);
      accepted++;
      const { raw } = await compose(req);
      assertWellFormed(raw);
      const head = headerBlock(raw);
      assert.doesNotMatch(head, /^(bcc|x-injected):/im, label);
      const mail = await simpleParser(raw);
      assert.equal(mail.headers.has('bcc') || mail.headers.has('x-injected'), false, label);
      assert.doesNotMatch(mail.html || '', /body smuggled/, label);
    }
  }
  assert.ok(accepted >= 10, `harmless look-alikes (%0d%0a, encoded words) were composed and checked (${accepted})`);
});

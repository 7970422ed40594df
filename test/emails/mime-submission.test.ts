import { test } from 'node:test';
import assert from 'node:assert/strict';
import { finishMessage, parseSubmission, parseTagsHeader } from '../../src/emails/mime-submission.js';
import { parseAddress } from '../../src/mime/addresses.js';
import { AppError } from '../../src/errors.js';

const env = (from: string, ...rcpt: string[]) => ({
  mailFrom: parseAddress(from, 'from'),
  rcptTo: rcpt.map((r) => parseAddress(r)),
});
const msg = (...lines: string[]) => Buffer.from(lines.join('\r\n'));
const rejects = async (p: Promise<unknown>, name: string, re: RegExp) => {
  await assert.rejects(p, (err: unknown) => err instanceof AppError && err.spec.name === name && re.test(err.message));
};

test('recipients come from the envelope: To/Cc headers classify them, the rest are bcc', async () => {
  const m = await parseSubmission(
    msg(
      'From: "Acme, Inc" <hello@Example.com>',
      'To: a@dest.test, Nobody <not-in-envelope@dest.test>',
      'Cc: c@dest.test',
      'Bcc: b@dest.test',
      'Subject: Hi',
      '',
      'Body',
    ),
    env('hello@example.com', 'a@dest.test', 'c@dest.test', 'b@dest.test', 'hidden@dest.test'),
  );
  const r = m.request;
  assert.deepEqual(r.from, { name: 'Acme, Inc', address: 'hello@example.com', domain: 'example.com' });
  assert.deepEqual(
    r.to.map((a) => a.address),
    ['a@dest.test'],
  );
  assert.deepEqual(
    r.cc.map((a) => a.address),
    ['c@dest.test'],
  );
  assert.deepEqual(
    r.bcc.map((a) => a.address),
    ['b@dest.test', 'hidden@dest.test'],
  );
  assert.equal(r.subject, 'Hi');
  assert.equal(r.text, 'Body');
  assert.ok(!/^Bcc:/im.test(m.stripped.toString()));
});

test('owned headers are removed wherever they are and however they are spelled or folded', async () => {
  const m = await parseSubmission(
    msg(
      'Return-Path: <evil@x.test>',
      'From: hello@example.com',
      'BCC :',
      ' folded-hidden@dest.test',
      'DKIM-Signature: v=1; d=evil.test;',
      '\tb=abc',
      'X-Mailroom-Tags: a=b',
      'Resend-Idempotency-Key: k1',
      'To: a@dest.test',
      'X-Entity-Ref-ID: 42',
      '',
      'Body',
    ),
    env('hello@example.com', 'a@dest.test'),
  );
  const head = m.stripped.toString().split('\r\n\r\n')[0];
  assert.equal(head, 'From: hello@example.com\r\nTo: a@dest.test\r\nX-Entity-Ref-ID: 42');
  assert.deepEqual(m.request.tags, [{ name: 'a', value: 'b' }]);
  assert.equal(m.idempotencyKey, 'k1');
  assert.deepEqual(m.request.headers, { 'X-Entity-Ref-ID': '42' });
});

test("Message-ID and Date are added on the sending domain only when missing; the client's are kept", async () => {
  const bare = await parseSubmission(
    msg('From: hello@example.com', 'To: a@dest.test', '', 'x'),
    env('hello@example.com', 'a@dest.test'),
  );
  const done = finishMessage(bare, 'example.com', new Date('2026-01-02T03:04:05Z'));
  assert.match(done.messageId, /^<[0-9a-f-]{36}@example\.com>$/);
  assert.ok(
    done.raw
      .toString()
      .startsWith(
        `Message-ID: ${done.messageId}\r\nDate: Fri, 02 Jan 2026 03:04:05 +0000\r\nFrom: hello@example.com\r\n`,
      ),
  );
  const own = await parseSubmission(
    msg(
      'From: hello@example.com',
      'Message-ID: <mine@client.test>',
      'Date: Thu, 1 Jan 2026 00:00:00 +0000',
      'To: a@dest.test',
      '',
      'x',
    ),
    env('hello@example.com', 'a@dest.test'),
  );
  const kept = finishMessage(own, 'example.com', new Date());
  assert.equal(kept.messageId, '<mine@client.test>');
  assert.equal(kept.raw, own.stripped);
});

test('bare LF and bare CR line ends are normalized to CRLF', async () => {
  const m = await parseSubmission(
    Buffer.from('From: hello@example.com\nTo: a@dest.test\nSubject: LF\n\nline1\nline2\rline3\n'),
    env('hello@example.com', 'a@dest.test'),
  );
  assert.equal(
    m.stripped.toString(),
    'From: hello@example.com\r\nTo: a@dest.test\r\nSubject: LF\r\n\r\nline1\r\nline2\r\nline3\r\n',
  );
  assert.equal(m.request.subject, 'LF');
});

test('8-bit (UTF-8) headers are decoded for the record and kept byte for byte in the message', async () => {
  const raw = Buffer.from('From: Jürgen <hello@example.com>\r\nTo: a@dest.test\r\nSubject: Grüße ✓\r\n\r\nBody\r\n');
  const m = await parseSubmission(raw, env('hello@example.com', 'a@dest.test'));
  assert.equal(m.request.subject, 'Grüße ✓');
  assert.equal(m.request.from.name, 'Jürgen');
  assert.ok(m.stripped.equals(raw));
});

test('X-Mailroom-Tags is validated like the API tags field', async () => {
  assert.deepEqual(parseTagsHeader('a=b, c_d=e-f ,'), [
    { name: 'a', value: 'b' },
    { name: 'c_d', value: 'e-f' },
  ]);
  assert.throws(() => parseTagsHeader('a=b c'), /tags\[0\]\.value/);
  assert.throws(() => parseTagsHeader('novalue'), /name=value/);
  assert.throws(() => parseTagsHeader(`a=${'x'.repeat(257)}`), /1-256/);
  // A line break cannot smuggle a header in: the next line is a header of its own, and Bcc is dropped.
  const m = await parseSubmission(
    msg('From: hello@example.com', 'To: a@dest.test', 'X-Mailroom-Tags: a=b', 'Bcc: injected@dest.test', '', 'x'),
    env('hello@example.com', 'a@dest.test'),
  );
  assert.deepEqual(m.request.tags, [{ name: 'a', value: 'b' }]);
  assert.ok(!m.stripped.toString().includes('injected'));
  await rejects(
    parseSubmission(
      msg('From: hello@example.com', 'X-Mailroom-Tags: a=b\rc=d', '', 'x'),
      env('hello@example.com', 'a@dest.test'),
    ),
    'validation_error',
    /Malformed header line/,
  );
});

test('a message without a usable From, with NUL in its headers or with a garbage header line is refused', async () => {
  await rejects(
    parseSubmission(msg('To: a@dest.test', '', 'x'), env('hello@example.com', 'a@dest.test')),
    'invalid_from_address',
    /From header/,
  );
  await rejects(
    parseSubmission(msg('From: a@x.test, b@x.test', '', 'x'), env('hello@example.com', 'a@dest.test')),
    'invalid_from_address',
    /exactly one/,
  );
  await rejects(
    parseSubmission(msg('From: hello@example.com', 'X-A: a\0b', '', 'x'), env('hello@example.com', 'a@dest.test')),
    'validation_error',
    /NUL/,
  );
  await rejects(
    parseSubmission(
      msg('From hello@example.com Mon Jan 1 00:00:00 2026', 'From: hello@example.com', '', 'x'),
      env('hello@example.com', 'a@dest.test'),
    ),
    'validation_error',
    /Malformed/,
  );
});

test('NUL bytes hidden in encoded words or bodies are kept out of the record (PostgreSQL text cannot hold them)', async () => {
  const m = await parseSubmission(
    msg('From: =?utf-8?B?QQBC?= <hello@example.com>', 'To: a@dest.test', 'Subject: =?utf-8?B?eAB5?=', '', 'a\0b'),
    env('hello@example.com', 'a@dest.test'),
  );
  assert.deepEqual([m.request.subject, m.request.from.name, m.request.text], ['xy', 'AB', 'ab']);
  assert.ok(m.stripped.includes(Buffer.from('a\0b')));
});

test('very long headers (folded or not) pass through untouched', async () => {
  const long = 'X-Long: ' + 'y'.repeat(5000);
  const folded = 'Subject: ' + Array.from({ length: 100 }, (_, i) => `word${i}`).join('\r\n ');
  const m = await parseSubmission(
    msg('From: hello@example.com', 'To: a@dest.test', long, folded, '', 'x'),
    env('hello@example.com', 'a@dest.test'),
  );
  assert.ok(m.stripped.toString().includes(long));
  assert.ok(m.stripped.toString().includes(folded));
  assert.equal(m.request.subject, Array.from({ length: 100 }, (_, i) => `word${i}`).join(' '));
  assert.equal(m.request.headers['X-Long'], undefined, 'too long to record as a custom header, still sent');
});

test('the idempotency fingerprint ignores what clients regenerate (Message-ID, Date, MIME boundaries)', async () => {
  const build = (boundary: string, id: string) =>
    msg(
      'From: hello@example.com',
      'To: a@dest.test',
      `Message-ID: <${id}@c.test>`,
      `Date: ${id === '1' ? 'Thu, 1 Jan 2026 00:00:00 +0000' : 'Fri, 2 Jan 2026 00:00:00 +0000'}`,
      'Subject: Same',
      'MIME-Version: 1.0',
      `Content-Type: multipart/mixed; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain',
      '',
      'Hello',
      `--${boundary}`,
      'Content-Type: application/octet-stream',
      'Content-Disposition: attachment; filename="a.bin"',
      'Content-Transfer-Encoding: base64',
      '',
      'AAEC',
      `--${boundary}--`,
      '',
    );
  const a = await parseSubmission(build('b1', '1'), env('hello@example.com', 'a@dest.test'));
  const b = await parseSubmission(build('b2', '2'), env('hello@example.com', 'a@dest.test'));
  assert.deepEqual(a.fingerprint, b.fingerprint);
  assert.equal((a.fingerprint.attachments as unknown[]).length, 1);
});

test('the fast path for simple messages gives exactly what the full MIME parser gives', async () => {
  const cases = [
    msg(
      'From: <bench@example.com>',
      'To: <a@dest.test>',
      'Date: Sun, 22 Nov 2026 13:13:55 +0000 (UTC)',
      'Message-Id: <1@vm>',
      '',
      '1XXXX',
      '2XXXX',
      '',
    ),
    msg(
      'From: "Acme, Inc" <hello@example.com>',
      'To: A <a@dest.test>, b@dest.test',
      'Cc: Team: c@dest.test, d@dest.test;',
      'Reply-To: r@example.com',
      'Subject: Hello',
      ' folded  twice',
      'Content-Type: text/html; charset="UTF-8"',
      'Content-Transfer-Encoding: 8bit',
      '',
      '<p>Grüße</p>',
      '',
      '',
    ),
    msg(
      'From: Jürgen <hello@example.com>',
      'To: a@dest.test',
      'Subject: Grüße ✓',
      'Content-Type: text/plain; charset=us-ascii',
      '',
      'plain',
      '\0x',
    ),
    msg('From: hello@example.com', 'To: a@dest.test', 'Subject:', '', ''),
    msg('From: hello@example.com', 'To: a@dest.test', 'Subject: =?utf-8?Q?encoded?=', '', 'slow path'),
    msg('From: hello@example.com', 'To: a@dest.test', 'Content-Type: text/plain; format=flowed', '', 'flowed ', 'text'),
  ];
  for (const raw of cases) {
    const e = env('hello@example.com', 'a@dest.test', 'b@dest.test', 'c@dest.test');
    const fast = await parseSubmission(raw, e);
    const full = await parseSubmission(raw, e, { fullParser: true });
    assert.deepEqual(fast.request, full.request, raw.toString());
    assert.deepEqual(fast.fingerprint, full.fingerprint);
  }
});

test('fuzz: random header blocks (CR, LF, NUL, colons, 8-bit, long lines) either parse or are refused with an AppError', async () => {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const pieces = [
    'From: hello@example.com',
    'To: a@dest.test',
    'X-Mailroom-Tags: ',
    'a=b',
    ',',
    '=',
    'Bcc: ',
    'Subject: ',
    '=?utf-8?B?AA==?=',
    '\r\n',
    '\n',
    '\r',
    '\r\n ',
    '\0',
    ':',
    'ü',
    '\xff',
    '✓',
    'Resend-Idempotency-Key: ',
    'Content-Type: multipart/mixed; boundary=x',
    '--x',
    'x'.repeat(1200),
    ' ',
    '\t',
    '<',
    '>',
    '@',
  ];
  for (let i = 0; i < 400; i++) {
    const parts = Array.from({ length: 1 + rand(30) }, () => pieces[rand(pieces.length)]);
    const raw = Buffer.from(`From: hello@example.com\r\n${parts.join('')}\r\n\r\nbody\r\n`, i % 2 ? 'utf8' : 'latin1');
    try {
      const m = await parseSubmission(raw, env('hello@example.com', 'a@dest.test'));
      const head = m.stripped.toString('latin1').split('\r\n\r\n')[0];
      assert.ok(
        !/^(bcc|x-mailroom-tags|resend-idempotency-key)\s*:/im.test(head),
        `owned header left in: ${JSON.stringify(head)}`,
      );
      assert.ok(!/\0/.test(JSON.stringify(m.request)), 'no NUL in the record');
    } catch (err) {
      assert.ok(err instanceof AppError, `${(err as Error).stack} for ${JSON.stringify(raw.toString('latin1'))}`);
    }
  }
});

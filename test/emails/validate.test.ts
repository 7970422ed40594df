import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError, type ErrorCode } from '../../src/errors.js';
import { MAX_EMAIL_BYTES, templateRefOf, validateSendRequest } from '../../src/emails/validate.js';

const now = new Date('2025-06-04T12:00:00Z');
const base = { from: 'Acme <hello@acme.com>', to: 'bob@example.com', subject: 'Hi', html: '<p>Hi</p>' };
const validate = (body: unknown, allowAttachments = true) => validateSendRequest(body, { allowAttachments, now });

function rejects(body: unknown, code: ErrorCode, message: string | RegExp, allowAttachments = true) {
  assert.throws(
    () => validate(body, allowAttachments),
    (err: unknown) => {
      assert.ok(err instanceof AppError, String(err));
      assert.equal(err.code, code);
      assert.equal(err.status, 422);
      if (typeof message === 'string') assert.equal(err.message, message);
      else assert.match(err.message, message);
      return true;
    },
    JSON.stringify(body).slice(0, 120),
  );
}

test('normalizes a minimal request', () => {
  assert.deepEqual(validate(base), {
    from: { name: 'Acme', address: 'hello@acme.com', domain: 'acme.com' },
    to: [{ address: 'bob@example.com', domain: 'example.com' }],
    cc: [],
    bcc: [],
    replyTo: [],
    subject: 'Hi',
    html: '<p>Hi</p>',
    headers: {},
    attachments: [],
    tags: [],
  });
});

test('normalizes every optional field and ignores unknown ones', () => {
  const req = validate({
    ...base,
    from: 'x@Bücher.de',
    to: ['A <a@x.com>', 'b@x.com'],
    cc: 'c@x.com',
    bcc: ['d@x.com'],
    reply_to: 'r@x.com',
    text: '',
    headers: { 'X-Entity-Ref-ID': '42', 'List-Unsubscribe': '<https://x/u>' },
    tags: [{ name: 'category', value: 'confirm_email' }],
    attachments: [{ filename: 'a.txt', content: 'aGk=' }],
    scheduled_at: 'in 1 hour',
    unknown_field: true,
    react: null,
  });
  assert.equal(req.from.domain, 'xn--bcher-kva.de');
  assert.deepEqual(
    req.to.map((a) => a.address),
    ['a@x.com', 'b@x.com'],
  );
  assert.deepEqual([req.cc[0].address, req.bcc[0].address, req.replyTo[0].address], ['c@x.com', 'd@x.com', 'r@x.com']);
  assert.equal(req.text, '');
  assert.deepEqual(req.headers, { 'X-Entity-Ref-ID': '42', 'List-Unsubscribe': '<https://x/u>' });
  assert.deepEqual(req.tags, [{ name: 'category', value: 'confirm_email' }]);
  assert.deepEqual(req.attachments[0].content, Buffer.from('hi'));
  assert.equal(req.scheduledAt?.toISOString(), '2025-06-04T13:00:00.000Z');
  assert.equal('unknown_field' in req, false);
});

test('treats null optional fields as absent', () => {
  const req = validate({
    ...base,
    cc: null,
    bcc: null,
    reply_to: null,
    text: null,
    headers: null,
    attachments: null,
    tags: null,
    scheduled_at: null,
  });
  assert.deepEqual(
    [req.cc, req.bcc, req.replyTo, req.headers, req.attachments, req.tags, req.text, req.scheduledAt],
    [[], [], [], {}, [], [], undefined, undefined],
  );
});

test('rejects a body that is not an object', () => {
  for (const body of [null, [], 'x', 3]) rejects(body, 'validation_error', 'The request body must be a JSON object.');
});

test('reports missing required fields one at a time, from first', () => {
  rejects({}, 'missing_required_field', 'Missing `from` field.');
  rejects({ ...base, from: '' }, 'missing_required_field', 'Missing `from` field.');
  rejects({ ...base, to: undefined }, 'missing_required_field', 'Missing `to` field.');
  rejects({ ...base, to: [] }, 'missing_required_field', 'Missing `to` field.');
  rejects({ ...base, subject: undefined }, 'missing_required_field', 'Missing `subject` field.');
  rejects({ ...base, subject: '' }, 'missing_required_field', 'Missing `subject` field.');
  rejects({ ...base, html: undefined }, 'missing_required_field', 'Missing `html` or `text` field.');
  rejects({ ...base, html: '', text: '' }, 'missing_required_field', 'Missing `html` or `text` field.');
  assert.equal(validate({ ...base, html: undefined, text: 'plain' }).text, 'plain');
});

test('rejects a malformed from with invalid_from_address', () => {
  const msg =
    'Invalid `from` field. The email address needs to follow the `email@example.com` or `Name <email@example.com>` format.';
  for (const from of ['nope', 'a@localhost', 'Name <a@x.com', ['a@x.com'], { email: 'a@x.com' }, 5])
    rejects({ ...base, from }, 'invalid_from_address', msg);
});

test('rejects bad recipients with a validation_error naming the field', () => {
  rejects({ ...base, to: 'nope' }, 'validation_error', /^Invalid `to` field: "nope" is not a valid email address/);
  rejects({ ...base, to: ['ok@x.com', 'bad@'] }, 'validation_error', /^Invalid `to` field: "bad@"/);
  rejects({ ...base, cc: 'bad' }, 'validation_error', /^Invalid `cc` field: /);
  rejects(
    { ...base, bcc: ['a@x.com', 7] },
    'validation_error',
    /^Invalid `bcc` field: must be an email address or an array/,
  );
  rejects({ ...base, reply_to: 'bad' }, 'validation_error', /^Invalid `reply_to` field: /);
  rejects({ ...base, to: 42 }, 'validation_error', /^Invalid `to` field: /);
});

test('allows 50 recipients in to and rejects 51', () => {
  const list = (n: number) => Array.from({ length: n }, (_, i) => `u${i}@x.com`);
  assert.equal(validate({ ...base, to: list(50) }).to.length, 50);
  rejects(
    { ...base, to: list(51) },
    'validation_error',
    'Invalid `to` field: at most 50 recipients are allowed (got 51).',
  );
});

test('rejects non-string subject, html and text, and over-long subjects', () => {
  rejects({ ...base, subject: 5 }, 'validation_error', 'Invalid `subject` field: must be a string.');
  rejects({ ...base, html: ['x'] }, 'validation_error', 'Invalid `html` field: must be a string.');
  rejects({ ...base, text: {} }, 'validation_error', 'Invalid `text` field: must be a string.');
  rejects(
    { ...base, subject: 's'.repeat(989) },
    'validation_error',
    'Invalid `subject` field: must be at most 988 characters.',
  );
});

test('validates tags: shape, characters, length and count', () => {
  const tag = (name: unknown, value: unknown = 'v') => ({ ...base, tags: [{ name, value }] });
  const charset = /^Invalid `tags` field: tags\[0\]\.(name|value) must be 1-256 ASCII letters/;
  assert.equal(validate(tag('n'.repeat(256), 'A-z_09')).tags[0].name.length, 256);
  for (const bad of ['has space', 'ümlaut', 'a.b', '', 'n'.repeat(257), 5, undefined])
    rejects(tag(bad), 'validation_error', charset);
  rejects(tag('ok', 'bad value'), 'validation_error', /tags\[0\]\.value must be/);
  rejects({ ...base, tags: [{ name: 'ok' }] }, 'validation_error', /tags\[0\]\.value must be/);
  rejects(
    { ...base, tags: { name: 'a' } },
    'validation_error',
    'Invalid `tags` field: must be an array of {name, value} objects.',
  );
  rejects(
    { ...base, tags: ['a'] },
    'validation_error',
    'Invalid `tags` field: tags[0] must be an object with `name` and `value`.',
  );
  const many = (n: number) => Array.from({ length: n }, (_, i) => ({ name: `t${i}`, value: 'v' }));
  assert.equal(validate({ ...base, tags: many(75) }).tags.length, 75);
  rejects(
    { ...base, tags: many(76) },
    'validation_error',
    'Invalid `tags` field: at most 75 tags are allowed (got 76).',
  );
});

test('validates custom headers: object of strings with RFC 5322 names', () => {
  rejects(
    { ...base, headers: 'X-A: 1' },
    'validation_error',
    'Invalid `headers` field: must be an object of string values.',
  );
  rejects(
    { ...base, headers: [['X-A', '1']] },
    'validation_error',
    'Invalid `headers` field: must be an object of string values.',
  );
  rejects(
    { ...base, headers: { 'X-A': 1 } },
    'validation_error',
    'Invalid `headers` field: the value of `X-A` must be a string.',
  );
  for (const name of ['X A', 'X:A', 'Ünï', '', 'x'.repeat(129)])
    rejects({ ...base, headers: { [name]: 'v' } }, 'validation_error', /is not a valid header name/);
  rejects(
    { ...base, headers: { 'X-Long': 'v'.repeat(991) } },
    'validation_error',
    'Invalid `headers` field: `X-Long` is too long (a header line is at most 998 characters).',
  );
  assert.equal(validate({ ...base, headers: { 'X-Long': 'v'.repeat(990) } }).headers['X-Long'].length, 990);
});

test('refuses to let headers override the ones Mailroom owns, in any case', () => {
  for (const name of [
    'From',
    'to',
    'CC',
    'Bcc',
    'Subject',
    'Date',
    'Message-ID',
    'MIME-Version',
    'Content-Type',
    'content-transfer-encoding',
    'DKIM-Signature',
    'Return-Path',
  ]) {
    rejects(
      { ...base, headers: { [name]: 'x' } },
      'validation_error',
      `Invalid \`headers\` field: the \`${name}\` header is set by Mailroom and cannot be overridden.`,
    );
  }
});

test('rejects attachments in batch emails but allows an empty list', () => {
  rejects(
    { ...base, attachments: [{ content: 'aGk=' }] },
    'validation_error',
    'Attachments are not supported in batch emails',
    false,
  );
  assert.deepEqual(validate({ ...base, attachments: [] }, false).attachments, []);
});

test('reports attachment errors with invalid_attachment', () => {
  rejects(
    { ...base, attachments: [{ filename: 'a.txt' }] },
    'invalid_attachment',
    'Attachment must have either a `content` or `path`.',
  );
});

test('validates scheduled_at', () => {
  rejects(
    { ...base, scheduled_at: 5 },
    'validation_error',
    'Invalid `scheduled_at` field: must be a string (ISO 8601 or natural language).',
  );
  rejects(
    { ...base, scheduled_at: 'whenever' },
    'validation_error',
    /^Invalid `scheduled_at` field: could not understand "whenever"/,
  );
  rejects({ ...base, scheduled_at: '2020-01-01T00:00:00Z' }, 'validation_error', /^scheduled_at must be in the future/);
  rejects({ ...base, scheduled_at: 'in 40 days' }, 'validation_error', /^scheduled_at must be within 30 days/);
});

test('limits the email to 40 MB after base64, attachments and bodies together', () => {
  const raw = Math.floor(MAX_EMAIL_BYTES / 4) * 3; // exactly 40 MB once base64-encoded
  const big = Buffer.alloc(raw - 3).toString('base64');
  assert.equal(validate({ ...base, html: 'x', attachments: [{ content: big }] }).attachments.length, 1);
  rejects(
    { ...base, html: 'x'.repeat(5), attachments: [{ content: big }] },
    'validation_error',
    /^The email is too large: 40\.0 MB after base64 encoding; the limit is 40 MB/,
  );
});

test('custom headers cannot add a second Sender or Reply-To', () => {
  const base = { from: 'a@example.com', to: 'b@example.org', subject: 's', text: 'x' };
  assert.throws(
    () =>
      validateSendRequest(
        { ...base, headers: { Sender: 'a@example.com', sender: 'boss@other.test' } },
        { allowAttachments: true, now: new Date() },
      ),
    /appears more than once/,
  );
  assert.throws(
    () =>
      validateSendRequest(
        { ...base, reply_to: 'r@example.org', headers: { 'Reply-To': 'boss@other.test' } },
        { allowAttachments: true, now: new Date() },
      ),
    /either in `reply_to` or in `headers`/,
  );
  assert.doesNotThrow(() =>
    validateSendRequest(
      { ...base, headers: { 'Reply-To': 'r@example.org' } },
      { allowAttachments: true, now: new Date() },
    ),
  );
});

test('a template must be rendered before validation, is an object with an id, and excludes html and text; topic_id must be a string (its topic is looked up by the send path)', () => {
  const base = { from: 'a@example.com', to: 'b@example.org', subject: 's' };
  assert.throws(
    () =>
      validateSendRequest(
        { ...base, template: { id: 'welcome', variables: {} } },
        { allowAttachments: true, now: new Date() },
      ),
    /Invalid `template` field/,
  );
  assert.deepEqual(templateRefOf({ ...base, template: { id: 'welcome', variables: { A: 1 } } }), {
    ref: 'welcome',
    variables: { A: 1 },
  });
  assert.equal(templateRefOf({ ...base, text: 'x' }), undefined);
  assert.throws(() => templateRefOf({ ...base, template: 'welcome' }), /Invalid `template` field: must be an object/);
  assert.throws(() => templateRefOf({ ...base, template: { variables: {} } }), /Missing `template.id` field/);
  assert.throws(
    () => templateRefOf({ ...base, html: '<p>x</p>', template: { id: 'welcome' } }),
    /Invalid `template` field: `html` cannot be sent with a template/,
  );
  assert.throws(
    () => templateRefOf({ ...base, text: 'x', template: { id: 'welcome' } }),
    /Invalid `template` field: `text` cannot be sent with a template/,
  );
  assert.throws(
    () => validateSendRequest({ ...base, text: 'x', topic_id: 42 }, { allowAttachments: true, now: new Date() }),
    /Invalid `topic_id` field: must be a string/,
  );
  assert.equal(
    validateSendRequest(
      { ...base, text: 'x', topic_id: 'b6d24b8e-af0b-4c3c-be0c-359bbd97381e' },
      { allowAttachments: true, now: new Date() },
    ).topicId,
    'b6d24b8e-af0b-4c3c-be0c-359bbd97381e',
  );
  assert.doesNotThrow(() =>
    validateSendRequest({ ...base, text: 'x', topic_id: null }, { allowAttachments: true, now: new Date() }),
  );
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.js';
import {
  decodeContent,
  normalizeAttachment,
  normalizeAttachments,
  resolveAttachments,
} from '../../src/emails/attachments.js';

const bytes = Buffer.from([0, 1, 2, 127, 128, 200, 255, 10, 13]);

function rejects(raw: unknown, code: 'invalid_attachment' | 'validation_error', message: RegExp | string) {
  assert.throws(
    () => normalizeAttachment(raw, 0),
    (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, code);
      assert.equal(err.status, 422);
      if (typeof message === 'string') assert.equal(err.message, message);
      else assert.match(err.message, message);
      return true;
    },
    JSON.stringify(raw)?.slice(0, 80),
  );
}

test('decodes content given as base64, an int array or a serialized Buffer to the same bytes', () => {
  const forms = [bytes.toString('base64'), [...bytes], JSON.parse(JSON.stringify(bytes))];
  assert.deepEqual(forms[2], { type: 'Buffer', data: [...bytes] });
  for (const content of forms) assert.deepEqual(normalizeAttachment({ filename: 'a.bin', content }, 0).content, bytes);
});

test('accepts line-wrapped, unpadded and url-safe base64', () => {
  const b = Buffer.from('hello world, this is a longer attachment body ~~~???');
  const std = b.toString('base64');
  assert.deepEqual(decodeContent(std.replace(/(.{10})/g, '$1\r\n')), b);
  assert.deepEqual(decodeContent(std.replace(/=+$/, '')), b);
  assert.deepEqual(decodeContent(b.toString('base64url')), b);
});

test('rejects content that is not base64, not bytes, or of another shape', () => {
  rejects(
    { content: 'not base64!' },
    'invalid_attachment',
    'Attachment attachments[0] `content` must be base64-encoded.',
  );
  rejects({ content: 'abcde' }, 'invalid_attachment', /must be base64-encoded/);
  rejects(
    { content: [1, 256] },
    'invalid_attachment',
    'Attachment attachments[0] `content` arrays must hold integers from 0 to 255.',
  );
  rejects({ content: [1, -1] }, 'invalid_attachment', /integers from 0 to 255/);
  rejects({ content: [1.5] }, 'invalid_attachment', /integers from 0 to 255/);
  rejects({ content: ['1'] }, 'invalid_attachment', /integers from 0 to 255/);
  rejects({ content: { type: 'Buffer', data: [300] } }, 'invalid_attachment', /integers from 0 to 255/);
  rejects(
    { content: { type: 'Blob', data: [1] } },
    'invalid_attachment',
    /must be a base64 string, an array of bytes or \{"type":"Buffer"/,
  );
  rejects({ content: 42 }, 'invalid_attachment', /must be a base64 string/);
});

test('requires exactly one of content or path', () => {
  const msg = 'Attachment must have either a `content` or `path`.';
  rejects({ filename: 'a.txt' }, 'invalid_attachment', msg);
  rejects({ filename: 'a.txt', content: '' }, 'invalid_attachment', msg);
  rejects({ content: 'aGk=', path: 'https://x.io/a.txt' }, 'invalid_attachment', msg);
  rejects('aGk=', 'invalid_attachment', 'Attachment attachments[0] must be an object.');
});

test('validates path URLs', () => {
  rejects(
    { path: 'not a url' },
    'invalid_attachment',
    'Attachment attachments[0] `path` must be a valid http or https URL.',
  );
  rejects(
    { path: 'file:///etc/passwd' },
    'invalid_attachment',
    'Attachment attachments[0] `path` must be an http or https URL.',
  );
  rejects({ path: 'data:text/plain,hi' }, 'invalid_attachment', /must be an http or https URL/);
  rejects({ path: 42 }, 'invalid_attachment', 'Attachment attachments[0] `path` must be a URL string.');
});

test('derives filename and content type from a path URL', () => {
  assert.deepEqual(normalizeAttachment({ path: 'https://cdn.x.io/files/Q3%20report.pdf?sig=abc' }, 0), {
    filename: 'Q3 report.pdf',
    contentType: 'application/pdf',
    path: 'https://cdn.x.io/files/Q3%20report.pdf?sig=abc',
  });
  const unknown = normalizeAttachment({ path: 'https://cdn.x.io/download' }, 0);
  assert.equal(unknown.contentType, undefined, 'left for the response Content-Type');
  assert.equal(
    normalizeAttachment({ path: 'https://x.io/%0d%0aBcc:%20a@b.c' }, 0).filename,
    undefined,
    'an unsafe decoded name is dropped',
  );
});

test('derives the content type from the filename, or takes content_type as given', () => {
  assert.equal(normalizeAttachment({ filename: 'photo.JPG', content: 'aGk=' }, 0).contentType, 'image/jpeg');
  assert.equal(
    normalizeAttachment({ filename: 'data.unknownext', content: 'aGk=' }, 0).contentType,
    'application/octet-stream',
  );
  assert.equal(normalizeAttachment({ content: 'aGk=' }, 0).contentType, 'application/octet-stream');
  assert.equal(
    normalizeAttachment({ filename: 'a.txt', content: 'aGk=', content_type: 'Text/CSV; charset=utf-8' }, 0).contentType,
    'text/csv',
  );
  rejects(
    { content: 'aGk=', content_type: 'pdf' },
    'invalid_attachment',
    'Attachment attachments[0] `content_type` must be a MIME type like `application/pdf`.',
  );
  rejects(
    { content: 'aGk=', content_type: 7 },
    'invalid_attachment',
    'Attachment attachments[0] `content_type` must be a string.',
  );
});

test('validates the filename', () => {
  assert.equal(normalizeAttachment({ filename: false, content: 'aGk=' }, 0).filename, undefined);
  assert.equal(normalizeAttachment({ filename: 'Résumé 😀.pdf', content: 'aGk=' }, 0).filename, 'Résumé 😀.pdf');
  rejects(
    { filename: 5, content: 'aGk=' },
    'invalid_attachment',
    'Attachment attachments[0] `filename` must be a string.',
  );
  rejects(
    { filename: 'a'.repeat(256), content: 'aGk=' },
    'invalid_attachment',
    'Attachment attachments[0] `filename` must be at most 255 characters.',
  );
});

test('accepts content_id and its legacy alias inline_content_id, under 128 characters', () => {
  assert.equal(normalizeAttachment({ content: 'aGk=', filename: 'l.png', content_id: 'logo' }, 0).contentId, 'logo');
  assert.equal(
    normalizeAttachment({ content: 'aGk=', filename: 'l.png', inline_content_id: 'logo-2' }, 0).contentId,
    'logo-2',
  );
  assert.equal(normalizeAttachment({ content: 'aGk=', content_id: '<img1@x>' }, 0).contentId, 'img1@x');
  assert.equal(normalizeAttachment({ content: 'aGk=', content_id: 'c'.repeat(127) }, 0).contentId?.length, 127);
  rejects(
    { content: 'aGk=', content_id: 'c'.repeat(128) },
    'invalid_attachment',
    'Attachment attachments[0] `content_id` must be less than 128 characters.',
  );
  rejects({ content: 'aGk=', content_id: 'has space' }, 'invalid_attachment', /printable ASCII without spaces/);
  rejects({ content: 'aGk=', content_id: 'a>b' }, 'invalid_attachment', /angle brackets/);
  rejects(
    { content: 'aGk=', inline_content_id: 3 },
    'invalid_attachment',
    'Attachment attachments[0] `content_id` must be a string.',
  );
});

test('rejects line breaks and control characters in filename, content_type and content_id with a 422 validation_error', () => {
  for (const nasty of ['\r\nBcc: x@y.z', '\n', '\r', '\u0000', '\u2028', '\u2029', '\u0085']) {
    rejects(
      { content: 'aGk=', filename: `a${nasty}.txt` },
      'validation_error',
      'Invalid `attachments[0].filename` field: line breaks and control characters are not allowed.',
    );
    rejects(
      { content: 'aGk=', content_type: `text/plain${nasty}` },
      'validation_error',
      /Invalid `attachments\[0\].content_type` field/,
    );
    rejects(
      { content: 'aGk=', content_id: `id${nasty}` },
      'validation_error',
      /Invalid `attachments\[0\].content_id` field/,
    );
  }
});

test('normalizeAttachments treats null as none and names the index in errors', () => {
  assert.deepEqual(normalizeAttachments(null), []);
  assert.deepEqual(normalizeAttachments(undefined), []);
  assert.throws(() => normalizeAttachments({}), /Invalid `attachments` field: must be an array/);
  assert.throws(() => normalizeAttachments([{ content: 'aGk=' }, { content: [999] }]), /attachments\[1\]/);
});

test('resolveAttachments passes content attachments through without any network access', async () => {
  const list = normalizeAttachments([{ filename: 'a.txt', content: 'aGk=' }]);
  const resolved = await resolveAttachments(list, { allowPrivateNetworks: false, maxBytes: 10, timeoutMs: 10 });
  assert.deepEqual(resolved, [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('hi') }]);
});

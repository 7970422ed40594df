import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withListHeaders } from '../../src/mime/list-headers.js';

const raw = Buffer.from(
  [
    'From: a@example.com',
    'To: b@dest.test',
    'List-Unsubscribe: <https://caller.example/u>,',
    ' <mailto:u@caller.example>',
    'Subject: Hi',
    'list-id: caller',
    'X-Keep: yes',
    '',
    'List-Unsubscribe: body text stays',
    '',
  ].join('\r\n'),
);

test("a recipient's copy replaces the caller's list headers (folded lines too) with ours, at the end of the header block; the body is unchanged", () => {
  const out = withListHeaders(raw, [
    ['List-Unsubscribe', '<https://ours/u/t>,\r\n <mailto:x@y>'],
    ['List-Unsubscribe-Post', 'List-Unsubscribe=One-Click'],
  ]).toString();
  assert.equal(
    out,
    [
      'From: a@example.com',
      'To: b@dest.test',
      'Subject: Hi',
      'X-Keep: yes',
      'List-Unsubscribe: <https://ours/u/t>,',
      ' <mailto:x@y>',
      'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
      '',
      'List-Unsubscribe: body text stays',
      '',
    ].join('\r\n'),
  );
});

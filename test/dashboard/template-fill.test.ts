// The dashboard's fill of a template's variables when a broadcast is composed from it
// (ui/src/template-fill.ts): the same values as the server's renderer gives a send for the
// variables, HTML-escaped in HTML, while contact tags and the unsubscribe URL stay for the broadcast.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fillVariables } from '../../ui/src/template-fill.js';
import { compileVersion, renderVersion } from '../../src/templates/render.js';
import type { TemplateVersionRow } from '../../src/store/templates.js';

const vars = [
  { key: 'MONTH', type: 'string' as const, fallback_value: 'This month' },
  { key: 'TOTAL', type: 'number' as const, fallback_value: null },
];

test('variables filled as the server renders them for a send, escaped in HTML', () => {
  const html = '<p>{{{MONTH}}}: {{{TOTAL}}} items, {{{ NOTE | none }}}</p>';
  const values = { MONTH: 'May & <June>', TOTAL: '3' };
  const server = renderVersion(
    compileVersion({ html, text_body: null, subject: null, variables: vars } as unknown as TemplateVersionRow),
    values,
  );
  assert.equal(fillVariables(html, vars, values, true), server.html);
  assert.equal(fillVariables(html, vars, values, true), '<p>May &amp; &lt;June&gt;: 3 items, none</p>');
  assert.equal(fillVariables('{{{MONTH}}}', vars, { MONTH: 'A & B' }, false), 'A & B');
  assert.equal(fillVariables('{{{MONTH}}}', vars, {}, true), 'This month');
});

test('contact tags, legacy names and the unsubscribe URL are kept; a variable without any value is kept and reported', () => {
  const missing = new Set<string>();
  const body =
    'Hi {{{contact.first_name|there}}} {{{FIRST_NAME|you}}} {{{TOTAL}}} <a href="{{{RESEND_UNSUBSCRIBE_URL}}}">x</a>';
  assert.equal(fillVariables(body, vars, {}, true, missing), body);
  assert.deepEqual([...missing], ['TOTAL']);
});

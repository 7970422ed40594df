import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile, render, variableSlots } from '../../src/render/personalize.js';

const ada = {
  email: 'ada@example.org',
  first_name: 'Ada',
  last_name: null,
  properties: { plan: 'pro', seats: 3, company: '' },
};

test("fills contact fields, properties and legacy tags, with the tag's fallback first, then the property's", () => {
  const c = compile(
    'Hi {{{contact.first_name|there}}} {{{LAST_NAME|Friend}}} <{{{EMAIL}}}>: {{{contact.plan}}}/{{{contact.properties.seats}}} at {{{contact.company|your company}}}, tier {{{contact.tier}}}.',
    { html: false },
  );
  assert.equal(
    render(c, { contact: ada, propertyFallbacks: { tier: 'free' } }),
    'Hi Ada Friend <ada@example.org>: pro/3 at your company, tier free.',
  );
  assert.equal(
    render(c, { contact: { email: 'x@example.org' } }),
    'Hi there Friend <x@example.org>: / at your company, tier .',
  );
});

test('escapes values in HTML parts, never in text parts; the template itself is left as written', () => {
  const evil = { email: 'e@example.org', first_name: '<script>alert("x")</script> & Co' };
  assert.equal(
    render(compile('<p>{{{contact.first_name}}}</p>', { html: true }), { contact: evil }),
    '<p>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; Co</p>',
  );
  assert.equal(
    render(compile('{{{contact.first_name}}}', { html: false }), { contact: evil }),
    '<script>alert("x")</script> & Co',
  );
});

test('unknown tags and the unsubscribe URL without a context stay as written; with one, the URL is filled', () => {
  const c = compile('{{{something.else}}} {{ double }} {{{RESEND_UNSUBSCRIBE_URL}}} {{{ contact.first_name | pal }}}', {
    html: true,
  });
  assert.equal(
    render(c, { contact: { email: 'a@b.c' } }),
    '{{{something.else}}} {{ double }} {{{RESEND_UNSUBSCRIBE_URL}}} pal',
  );
  assert.equal(
    render(c, { contact: { email: 'a@b.c' }, unsubscribeUrl: 'https://m.example/u/t?x=1&y=2' }),
    '{{{something.else}}} {{ double }} https://m.example/u/t?x=1&amp;y=2 pal',
  );
});

test('a body without tags renders as itself', () => {
  const body = '<html>' + 'x'.repeat(1000) + '</html>';
  assert.equal(render(compile(body, { html: true }), { contact: ada }), body);
});

test("compiled for a template, {{{KEY}}} is a variable: the send's value, else the tag's fallback, else the declared one; escaped in HTML only", () => {
  const html = compile(
    '<p>{{{PRODUCT}}} for {{{PRICE}}} ({{{NOTE|none}}}) {{{contact.first_name|friend}}} {{{missing}}}</p>',
    { html: true, variables: true },
  );
  assert.deepEqual(variableSlots(html), [
    { key: 'PRODUCT', tagFallback: false },
    { key: 'PRICE', tagFallback: false },
    { key: 'NOTE', tagFallback: true },
    { key: 'missing', tagFallback: false },
  ]);
  const ctx = {
    contact: { email: '' },
    variables: { PRODUCT: 'Fish & <Chips>', PRICE: 4.5 },
    variableFallbacks: { missing: 'x' },
  };
  assert.equal(render(html, ctx), '<p>Fish &amp; &lt;Chips&gt; for 4.5 (none) friend x</p>');
  assert.equal(
    render(compile('{{{PRODUCT}}} {{{1st_place}}}', { html: false, variables: true }), {
      contact: { email: '' },
      variables: { PRODUCT: 'Fish & <Chips>', '1st_place': 'me' },
    }),
    'Fish & <Chips> me',
  );
});

test("without `variables`, {{{KEY}}} stays as written (broadcast bodies keep other tools' tags)", () => {
  const c = compile('{{{PRODUCT}}} {{{EMAIL}}}', { html: false });
  assert.deepEqual(variableSlots(c), []);
  assert.equal(render(c, { contact: { email: 'a@b.c' }, variables: { PRODUCT: 'x' } }), '{{{PRODUCT}}} a@b.c');
});

test("a contact's value that is a whole link address cannot make it a script; web, mail and relative addresses pass", () => {
  const c = compile(
    '<a href="{{{contact.site}}}">site</a> <a href={{{contact.site}}}>bare</a> <img src=\'{{{contact.site}}}\'> ' +
      '<a href="https://x.test/?u={{{contact.site}}}">query</a> <p>{{{contact.site}}}</p>',
    { html: true },
  );
  const as = (site: string) => render(c, { contact: { email: 'a@b.test', properties: { site } } });
  for (const bad of [
    'javascript:alert(1)',
    ' JavaScript:alert(1)',
    'java\tscript:alert(1)',
    'data:text/html,x',
    'vbscript:x',
  ])
    assert.match(as(bad), /^<a href="#">site<\/a> <a href=#>bare<\/a> <img src='#'> /, JSON.stringify(bad));
  // inside the query it is only text (escaped), as in the paragraph
  assert.match(as('javascript:alert(1)'), /\?u=javascript:alert\(1\)">query<\/a> <p>javascript:alert\(1\)<\/p>$/);
  for (const good of [
    'https://acme.test/a?b=1&c',
    'http://x.test',
    'mailto:a@b.test',
    'tel:+4412',
    '/relative',
    'page.html',
  ])
    assert.ok(as(good).startsWith(`<a href="${good.replace('&', '&amp;')}">site</a>`), good);
  // in a text body nothing is an attribute
  const text = compile('Visit {{{contact.site}}}', { html: false });
  assert.equal(
    render(text, { contact: { email: 'a@b.test', properties: { site: 'javascript:x' } } }),
    'Visit javascript:x',
  );
});

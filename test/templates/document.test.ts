// The editor's document checked and its rich text sanitised (templates/document.ts, rich-text.ts):
// hostile HTML from a list of known tricks and from generated tag soup comes out as exactly the
// allowed subset; bounds (size, block count, depth, unknown fields, links) refuse with the path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.js';
import { checkDocument, MAX_BLOCKS } from '../../src/templates/document.js';
import { linkOf, sanitiseRichText } from '../../src/templates/rich-text.js';
import { prng } from '../helpers/prng.js';
import { sampleDocument } from '../helpers/email-document.js';

/** The output grammar: text without < > or bare quotes, and only the allowed tags, `a` with one checked href. */
const ALLOWED_TAG = /^<(?:\/?(?:p|br|strong|b|em|i|u|s|ul|ol|li|a)|a href="(?:https?:\/\/|mailto:|\{\{\{)[^"<>\s]*")>$/;
function assertSafe(html: string, input: string): void {
  for (const m of html.matchAll(/<[^>]*>?/g)) assert.match(m[0], ALLOWED_TAG, `from ${JSON.stringify(input)}`);
  const text = html.replace(/<[^>]*>/g, '');
  assert.doesNotMatch(text, /[<>]/, `from ${JSON.stringify(input)}`);
  // balanced: every non-void tag closed in order
  const stack: string[] = [];
  for (const [, close, name] of html.matchAll(/<(\/?)([a-z]+)[^>]*>/g)) {
    if (name === 'br') continue;
    if (close) assert.equal(stack.pop(), name, `unbalanced from ${JSON.stringify(input)}`);
    else stack.push(name);
  }
  assert.deepEqual(stack, []);
}

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AppError, String(err));
    assert.equal(err.status, 422);
    return err.message;
  }
  assert.fail('expected a 422');
};

test('known XSS tricks come out as the allowed subset, their text kept and their scripts gone', () => {
  const cases: [string, string][] = [
    ['<p onclick="alert(1)">Hi</p>', '<p>Hi</p>'],
    ['<script>alert(1)</script>Hi', 'Hi'],
    ['<SCRIPT SRC=//x.test/x.js></SCRIPT>Hi', 'Hi'],
    ['<style>p{}</style><p>Hi</p>', '<p>Hi</p>'],
    ['<img src=x onerror=alert(1)>Hi', 'Hi'],
    ['<svg onload=alert(1)><p>in svg</p></svg>Hi', 'Hi'],
    ['<iframe src="javascript:alert(1)"></iframe>Hi', 'Hi'],
    ['<a href="javascript:alert(1)">x</a>', 'x'],
    ['<a href=" JaVaScRiPt:alert(1)">x</a>', 'x'],
    ['<a href="jav&#x09;ascript:alert(1)">x</a>', 'x'],
    ['<a href="java\tscript:alert(1)">x</a>', 'x'],
    ['<a href="data:text/html;base64,PHNjcmlwdD4=">x</a>', 'x'],
    ['<a href="vbscript:msgbox(1)">x</a>', 'x'],
    ['<a href="https://x.test/" onclick="alert(1)" style="color:red">x</a>', '<a href="https://x.test/">x</a>'],
    ['<a href=https://x.test/a onmouseover=alert(1)>x</a>', '<a href="https://x.test/a">x</a>'],
    ['<a href="https://x.test/&quot;onmouseover=alert(1)">x</a>', 'x'],
    ['<a href="{{{contact.site|https://x.test}}}">site</a>', '<a href="{{{contact.site|https://x.test}}}">site</a>'],
    ['<a href="mailto:a@x.test">mail</a>', '<a href="mailto:a@x.test">mail</a>'],
    ['<!--[if mso]><script>alert(1)</script><![endif]-->Hi', 'Hi'],
    ['<![CDATA[<script>alert(1)</script>]]>Hi', 'alert(1)]]&gt;Hi'],
    ['</mj-text><mj-raw><script>alert(1)</script></mj-raw>', ''],
    ['<p>unclosed <strong>bold', '<p>unclosed <strong>bold</strong></p>'],
    ['</p></strong>stray closers', 'stray closers'],
    ['a < b > c & d &amp; e "q"', 'a &lt; b &gt; c &amp; d &amp; e &quot;q&quot;'],
    // no "<" inside a tag: the "tag" is text, and <script> then drops the rest
    ['<p title="<script>">x</p>', '&lt;p title=&quot;'],
    ['Hi {{{contact.first_name|there}}}!', 'Hi {{{contact.first_name|there}}}!'],
    ['<ul><li>one<li>two</ul>', '<ul><li>one<li>two</li></li></ul>'],
    ['<br/><br >line', '<br><br>line'],
  ];
  for (const [input, expected] of cases) {
    const out = sanitiseRichText(input).html;
    assertSafe(out, input);
    assert.doesNotMatch(out, /script|onerror|onclick|onload|onmouseover|javascript|vbscript|data:/i, input);
    assert.equal(out, expected, input);
  }
});

test('generated tag soup always comes out in the allowed grammar, and sanitising twice changes nothing', () => {
  const rnd = prng(30);
  const pieces = [
    '<',
    '>',
    '</',
    '/>',
    '"',
    "'",
    '=',
    ' ',
    '&',
    '&amp;',
    '&#x3c;',
    ';',
    '{{{',
    '}}}',
    '|',
    'contact.first_name',
    'p',
    'a',
    'b',
    'script',
    'img',
    'svg',
    'style',
    'href',
    'src',
    'onclick',
    'javascript:',
    'https://x.test/',
    'mailto:',
    '<a href="',
    '<p>',
    '</p>',
    '<script>',
    '</script>',
    '<!--',
    '-->',
    '<![CDATA[',
    ']]>',
    'text',
    '\n',
    '\t',
    'é',
  ];
  for (let n = 0; n < 3000; n++) {
    let input = '';
    const len = 1 + Math.floor(rnd() * 40);
    for (let i = 0; i < len; i++) input += pieces[Math.floor(rnd() * pieces.length)];
    const once = sanitiseRichText(input).html;
    assertSafe(once, input);
    assert.equal(sanitiseRichText(once).html, once, `idempotent for ${JSON.stringify(input)}`);
  }
});

test('sanitising stays linear on input built to make a tag scanner backtrack', () => {
  for (const unit of ['<a ', '<a "', "<p '", '<a href="x', '&', '{{{', '<!--', '<!x']) {
    const input = unit.repeat(Math.floor(100_000 / unit.length));
    const t0 = performance.now();
    sanitiseRichText(input);
    const ms = performance.now() - t0;
    assert.ok(ms < 1000, `${JSON.stringify(unit)} x ${input.length / unit.length}: ${ms.toFixed(0)} ms`);
  }
});

test('links: http(s), mailto or a leading {{{tag}}}, nothing with spaces, quotes or another scheme', () => {
  for (const ok of [
    'https://x.test/a?b=1&c=2',
    'http://x.test',
    'mailto:a@x.test',
    '{{{contact.url}}}',
    '{{{URL|https://x.test}}}/p',
  ])
    assert.equal(linkOf(ok), ok);
  for (const bad of [
    'javascript:alert(1)',
    'https://',
    'https:///x',
    '//x.test',
    'ftp://x.test',
    'https://x.test/a b',
    'https://x.test/"',
    'x{{{t}}}',
    '',
  ])
    assert.equal(linkOf(bad), undefined, bad);
});

test('the sample document passes and comes back with only its known fields; warnings name what was dropped', () => {
  const c = checkDocument(sampleDocument());
  assert.deepEqual(c.warnings, []);
  assert.equal(c.document.blocks.length, 7);
  const dirty = checkDocument({
    version: 1,
    blocks: [{ type: 'text', id: 't', html: '<p>x<script>y</script><img src=z></p>' }],
  });
  assert.deepEqual(dirty.warnings, [
    'document.blocks[0].html: dropped <script>',
    'document.blocks[0].html: dropped <img>',
  ]);
  assert.deepEqual(dirty.document.blocks[0], { type: 'text', id: 't', html: '<p>x</p>' });
});

test('bounds: block count (nested counted), size, depth, columns, footer placement and unknown fields are 422 with the path', () => {
  const divider = (i: number) => ({ type: 'divider', id: `d${i}` });
  const many = (n: number) => ({ version: 1, blocks: Array.from({ length: n }, (_, i) => divider(i)) });
  assert.equal(checkDocument(many(MAX_BLOCKS)).document.blocks.length, MAX_BLOCKS);
  assert.match(
    refusal(() => checkDocument(many(MAX_BLOCKS + 1))),
    /at most 200 blocks/,
  );
  const nested = {
    version: 1,
    blocks: Array.from({ length: 67 }, (_, i) => ({
      type: 'columns',
      id: `c${i}`,
      columns: [{ blocks: [divider(i * 2)] }, { blocks: [divider(i * 2 + 1)] }],
    })),
  };
  assert.match(
    refusal(() => checkDocument(nested)),
    /blocks\[66\].*at most 200 blocks \(counting those in columns\)/,
  );
  const huge = { version: 1, blocks: [{ type: 'text', id: 't', html: 'x'.repeat(600_000) }] };
  assert.match(
    refusal(() => checkDocument(huge)),
    /`document` field: must be at most 512 KB/,
  );
  let deep: unknown = [];
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.match(
    refusal(() => checkDocument({ version: 1, blocks: [], settings: deep })),
    /`document`/,
  );
  const col = (blocks: unknown[]) => ({ version: 1, blocks: [{ type: 'columns', id: 'c', columns: blocks }] });
  assert.match(
    refusal(() => checkDocument(col([{ blocks: [] }]))),
    /columns`.*2 or 3/,
  );
  assert.match(
    refusal(() => checkDocument(col([{ blocks: [] }, { blocks: [] }, { blocks: [] }, { blocks: [] }]))),
    /2 or 3/,
  );
  const inner = (b: unknown) => col([{ blocks: [b] }, { blocks: [] }]);
  assert.match(
    refusal(() => checkDocument(inner({ type: 'columns', id: 'x', columns: [] }))),
    /`document\.blocks\[0\]\.columns\[0\]\.blocks\[0\]\.type`.*inside columns/,
  );
  assert.match(
    refusal(() => checkDocument(inner({ type: 'footer', id: 'x', html: '', unsubscribe: true }))),
    /footer cannot/,
  );
  assert.match(
    refusal(() => checkDocument({ version: 1, blocks: [], extra: 1 })),
    /`document\.extra`/,
  );
  assert.match(
    refusal(() => checkDocument({ version: 1, blocks: [{ type: 'text', id: 'x'.repeat(65), html: '' }] })),
    /\.id`/,
  );
  assert.match(
    refusal(() => checkDocument({ version: 1, blocks: [{ type: 'heading', id: 'h', text: 'a\u0000', level: 1 }] })),
    /control/,
  );
  assert.match(
    refusal(() => checkDocument({ version: 1, blocks: [{ type: 'heading', id: 'h', text: 'a', level: 4 }] })),
    /\.level`/,
  );
  assert.match(
    refusal(() => checkDocument({ version: 1, settings: { width: 1000 }, blocks: [] })),
    /settings\.width`/,
  );
  assert.match(
    refusal(() => checkDocument({ version: 1, settings: { preheader: 'x'.repeat(201) }, blocks: [] })),
    /preheader`/,
  );
  assert.match(
    refusal(() => checkDocument({ version: 1, blocks: [{ type: 'footer', id: 'f', html: '' }] })),
    /unsubscribe`/,
  );
  assert.match(
    refusal(() => checkDocument([])),
    /`document` field: must be an object/,
  );
});

test('random documents never crash the checker: each is accepted or refused with a 422', () => {
  const rnd = prng(66);
  const values: unknown[] = [
    null,
    0,
    -1,
    1.5,
    1e9,
    '',
    'x',
    '#fff',
    'https://x.test',
    'javascript:x',
    true,
    [],
    {},
    [{}],
  ];
  const types = ['heading', 'text', 'image', 'button', 'divider', 'spacer', 'columns', 'footer', 'x'];
  const keys = [
    'type',
    'id',
    'text',
    'html',
    'level',
    'align',
    'color',
    'src',
    'alt',
    'href',
    'width',
    'background',
    'height',
    'columns',
    'unsubscribe',
  ];
  const pick = <T>(a: T[]) => a[Math.floor(rnd() * a.length)];
  const block = (depth: number): unknown => {
    const b: Record<string, unknown> = { type: pick(types), id: `b${Math.floor(rnd() * 1e9)}` };
    for (let i = Math.floor(rnd() * 5); i > 0; i--) b[pick(keys)] = pick(values);
    if (b.type === 'columns' && depth < 2) b.columns = [{ blocks: [block(depth + 1)] }, { blocks: [block(depth + 1)] }];
    return b;
  };
  let accepted = 0;
  for (let n = 0; n < 2000; n++) {
    const doc = {
      version: rnd() < 0.9 ? 1 : pick(values),
      blocks: Array.from({ length: Math.floor(rnd() * 4) }, () => block(0)),
    };
    try {
      checkDocument(doc);
      accepted++;
    } catch (err) {
      assert.ok(err instanceof AppError && err.status === 422, String(err));
    }
  }
  assert.ok(accepted > 0, 'some random documents are valid');
});

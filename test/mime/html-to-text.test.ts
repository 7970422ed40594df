import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeEntities, htmlToText } from '../../src/mime/html-to-text.js';

test('turns paragraphs, headings and divs into lines', () => {
  assert.equal(htmlToText('<h1>Title</h1><p>One</p><p>Two</p><div>A</div><div>B</div>'), 'Title\n\nOne\n\nTwo\n\nA\nB');
});

test('turns <br> into a line break and collapses other whitespace', () => {
  assert.equal(htmlToText('<p>  Hello\n   <b>big</b>\t world<br>next<br/>line </p>'), 'Hello big world\nnext\nline');
});

test('drops head, style, script and comments', () => {
  const html =
    '<html><head><title>T</title><style>p{}</style></head><body><!--[if mso]><p>mso</p><![endif]--><script>alert(1)</script><p>Body</p></body></html>';
  assert.equal(htmlToText(html), 'Body');
});

test('renders lists with "- " and numbers, nesting by indentation', () => {
  assert.equal(
    htmlToText('<ul><li>One</li><li>Two<ul><li>Two-a</li></ul></li></ul><ol><li>First</li><li>Second</li></ol>'),
    '- One\n- Two\n  - Two-a\n\n1. First\n2. Second',
  );
});

test('renders links as "text (url)" unless the text already is the url', () => {
  assert.equal(
    htmlToText('<p>See <a href="https://x.io/a?b=1&amp;c=2">the docs</a>.</p>'),
    'See the docs (https://x.io/a?b=1&c=2).',
  );
  assert.equal(htmlToText('<a href="https://x.io">https://x.io</a>'), 'https://x.io');
  assert.equal(htmlToText('<a href="mailto:a@x.io">a@x.io</a>'), 'a@x.io');
  assert.equal(htmlToText('<a href="#top">Top</a> <a href="javascript:void(0)">JS</a>'), 'Top JS');
  assert.equal(htmlToText('<a href="https://x.io/u"><img src="b.png"></a>'), 'https://x.io/u');
});

test('decodes named and numeric entities and leaves unknown ones alone', () => {
  assert.equal(
    decodeEntities('&amp; &lt;&gt; &quot;&#39; &mdash; &#x1F600; &#8364; &hellip; &bogus; &copy'),
    '& <> "\' — 😀 € … &bogus; ©',
  );
  assert.equal(decodeEntities('&#0; &#xD800;'), '\ufffd \ufffd');
  assert.equal(htmlToText('<p>a&nbsp;&nbsp;b</p>'), 'a b');
});

test('keeps <pre> text as written', () => {
  assert.equal(htmlToText('<p>x</p><pre>  a\n    b</pre><p>y</p>'), 'x\n\n  a\n    b\n\ny');
});

test('puts table cells side by side and rows on lines', () => {
  assert.equal(htmlToText('<table><tr><td>A</td><td>B</td></tr><tr><th>C</th><td>D</td></tr></table>'), 'A B\nC D');
});

test('uses image alt text', () => {
  assert.equal(htmlToText('<p>Logo: <img src="l.png" alt="Acme"></p><img src="pixel.gif" alt="">'), 'Logo: Acme');
});

test('handles plain text, attributes with ">" and unclosed markup', () => {
  assert.equal(htmlToText('just text'), 'just text');
  assert.equal(htmlToText('<p title="a > b">x</p>'), 'x');
  assert.equal(htmlToText('<p>a < b'), 'a < b');
});

test('a large document costs time in proportion to its size (each paragraph break once copied the whole output so far)', () => {
  // 120,000 paragraphs, 4 MB: the quadratic version copied about 240 GB here (minutes); linear is well under a second.
  const html = '<p>Lorem ipsum dolor <a href="https://x.io/">sit</a> amet.</p>'.repeat(120_000);
  const t0 = performance.now();
  const text = htmlToText(html);
  const ms = performance.now() - t0;
  assert.equal(text.split('\n\n').length, 120_000);
  assert.ok(text.startsWith('Lorem ipsum dolor sit (https://x.io/) amet.\n\nLorem'), text.slice(0, 80));
  assert.ok(ms < 15_000, `${Math.round(ms)} ms for 4 MB of HTML`);
});

// POST /templates/render and the `document` of templates (issue 30's visual editor, server side):
// a document is checked, rendered by MJML in the worker thread, stored beside its html; versions
// and publishing keep it; raw HTML drops it; the Resend SDK's templates calls work as before.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { sampleDocument } from '../../helpers/email-document.js';

describe('POST /templates/render and templates with a document', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
  });
  after(async () => {
    await t.close();
  });

  test('renders a document to email HTML and text with its personalization tags intact', async () => {
    const r = await t.api('POST', '/templates/render', { body: { document: sampleDocument() } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body), ['object', 'html', 'text', 'warnings']);
    assert.equal(r.body.object, 'rendered_document');
    assert.deepEqual(r.body.warnings, []);
    const html: string = r.body.html;
    for (const tag of [
      '{{{contact.first_name|there}}}',
      '{{{contact.first_name|friend}}}',
      '{{{RESEND_UNSUBSCRIBE_URL}}}',
    ])
      assert.ok(html.includes(tag), tag);
    assert.match(html, /<a href="\{\{\{RESEND_UNSUBSCRIBE_URL\}\}\}"[^>]*>Unsubscribe<\/a>/);
    assert.match(html, /href="https:\/\/example\.com\/news\?a=1&amp;b=2"/);
    assert.match(html, /Our news this week/);
    assert.match(html, /A &amp; B/);
    assert.match(r.body.text, /^Hello \{\{\{contact\.first_name\|there\}\}\}/);
    assert.match(r.body.text, /Unsubscribe: \{\{\{RESEND_UNSUBSCRIBE_URL\}\}\}$/);
  });

  test('answers 422 naming the path of what is wrong', async () => {
    const cases: [unknown, RegExp][] = [
      [{ version: 2, blocks: [] }, /`document\.version`/],
      [
        { version: 1, blocks: [{ type: 'button', id: 'b', text: 'x', href: 'javascript:alert(1)' }] },
        /`document\.blocks\[0\]\.href`/,
      ],
      [
        { version: 1, blocks: [{ type: 'image', id: 'i', src: 'data:image/png;base64,AA', alt: '' }] },
        /`document\.blocks\[0\]\.src`/,
      ],
      [{ version: 1, blocks: [{ type: 'spacer', id: 's', height: 1000 }] }, /`document\.blocks\[0\]\.height`/],
      [
        {
          version: 1,
          blocks: [
            { type: 'heading', id: 'a', text: 'x', level: 1 },
            { type: 'divider', id: 'a' },
          ],
        },
        /`document\.blocks\[1\]\.id`.*another block/,
      ],
      [{ version: 1, blocks: [{ type: 'marquee', id: 'm' }] }, /`document\.blocks\[0\]\.type`/],
      [{ version: 1, blocks: [{ type: 'divider', id: 'd', onclick: 'x' }] }, /`document\.blocks\[0\]\.onclick`/],
      [{ version: 1, settings: { background: 'red' }, blocks: [] }, /`document\.settings\.background`/],
      [{ version: 1, settings: { font_family: 'Comic Sans' }, blocks: [] }, /`document\.settings\.font_family`/],
    ];
    for (const [document, message] of cases) {
      const r = await t.api('POST', '/templates/render', { body: { document } });
      assert.equal(r.status, 422, JSON.stringify(document));
      assert.equal(r.body.name, 'validation_error');
      assert.match(r.body.message, message);
    }
  });

  test('hostile input: scripts dropped with warnings, too big, too deep or too many blocks refused; rate limited as every route', async () => {
    const r = await t.api('POST', '/templates/render', {
      body: {
        document: {
          version: 1,
          blocks: [
            {
              type: 'text',
              id: 't',
              html: '<p onclick="x()">Hi<script>alert(1)</script><a href="javascript:alert(2)">a</a></p><img src=x onerror=alert(3)>',
            },
          ],
        },
      },
    });
    assert.equal(r.status, 200);
    assert.ok(r.headers.get('ratelimit-limit'), 'rate-limit headers as on every route');
    assert.deepEqual(r.body.warnings, [
      'document.blocks[0].html: dropped <script>',
      'document.blocks[0].html: dropped href javascript:alert(2)',
      'document.blocks[0].html: dropped <img>',
    ]);
    assert.doesNotMatch(r.body.html, /alert|onclick|onerror|javascript/);
    const big = await t.api('POST', '/templates/render', {
      body: {
        document: {
          version: 1,
          blocks: [{ type: 'text', id: 't', html: 'x'.repeat(99_000) }].concat(
            Array.from({ length: 6 }, (_, i) => ({ type: 'text', id: `t${i}`, html: 'y'.repeat(99_000) })),
          ),
        },
      },
    });
    assert.equal(big.status, 422);
    assert.match(big.body.message, /at most 512 KB/);
    const huge = await t.api('POST', '/templates/render', {
      raw: JSON.stringify({ document: { version: 1, blocks: [], pad: 'x'.repeat(2_000_000) } }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(huge.status, 413);
    let deep = '[]';
    for (let i = 0; i < 20_000; i++) deep = `[${deep}]`;
    const nested = await t.api('POST', '/templates/render', {
      raw: `{"document":{"version":1,"blocks":[],"settings":${deep}}}`,
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(nested.status, 422, JSON.stringify(nested.body));
    const many = await t.api('POST', '/templates/render', {
      body: {
        document: { version: 1, blocks: Array.from({ length: 201 }, (_, i) => ({ type: 'divider', id: `d${i}` })) },
      },
    });
    assert.equal(many.status, 422);
    assert.match(many.body.message, /`document\.blocks` field: a document holds at most 200 blocks/);
  });

  test('a body without a document is 422 missing_required_field', async () => {
    const r = await t.api('POST', '/templates/render', { body: {} });
    assert.equal(r.status, 422);
    assert.equal(r.body.name, 'missing_required_field');
    assert.match(r.body.message, /document/);
  });

  test('needs a full-access key: none is 401, a sending_access key is 401 restricted_api_key', async () => {
    const none = await t.api('POST', '/templates/render', { key: null, body: { document: sampleDocument() } });
    assert.equal(none.status, 401);
    const { data } = await t.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const r = await t.api('POST', '/templates/render', { key: data!.token, body: { document: sampleDocument() } });
    assert.equal(r.status, 401);
    assert.equal(r.body.name, 'restricted_api_key');
  });

  test('a template created with a document stores it and its rendering; html beside it is refused', async () => {
    const both = await t.api('POST', '/templates', {
      body: { name: 'Both', html: '<p>x</p>', document: sampleDocument() },
    });
    assert.equal(both.status, 422);
    assert.match(both.body.message, /`html`.*not both/);
    const c = await t.api('POST', '/templates', { body: { name: 'Newsletter', document: sampleDocument() } });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const got = (await t.api('GET', `/templates/${c.body.id}`)).body;
    assert.equal(got.document.version, 1);
    assert.deepEqual(
      got.document.blocks.map((b: { id: string }) => b.id),
      ['h1', 't1', 'b1', 'c1', 'd1', 's1', 'f1'],
    );
    assert.match(got.html, /^<!doctype html>/i);
    assert.ok(got.html.includes('{{{contact.first_name|there}}}'));
    assert.match(got.text, /Open the shop: https:\/\/example\.com\/shop/);
    const copy = await t.api('POST', `/templates/${c.body.id}/duplicate`);
    assert.deepEqual(
      (await t.api('GET', `/templates/${copy.body.id}`)).body.document,
      got.document,
      'a duplicate keeps it',
    );
  });

  test('PATCH with a document writes a new version; publish keeps it; html alone drops it (raw HTML mode)', async () => {
    const c = await t.api('POST', '/templates', { body: { name: 'Versions', html: '<p>raw</p>' } });
    const id = c.body.id;
    assert.equal((await t.api('GET', `/templates/${id}`)).body.document, null);
    const doc = sampleDocument();
    doc.blocks[0] = { type: 'heading', id: 'h1', text: 'Second', level: 2 };
    assert.equal((await t.api('PATCH', `/templates/${id}`, { body: { document: doc } })).status, 200);
    const v2 = (await t.api('GET', `/templates/${id}`)).body;
    // the editor saving the same document again writes no version (jsonb reorders its keys: compared as data)
    await t.api('PATCH', `/templates/${id}`, { body: { document: doc } });
    assert.equal((await t.api('GET', `/templates/${id}`)).body.current_version_id, v2.current_version_id);
    assert.equal(v2.document.blocks[0].text, 'Second');
    assert.match(v2.html, /Second<\/h2>/);
    assert.equal((await t.api('POST', `/templates/${id}/publish`)).status, 200);
    const published = (await t.api('GET', `/templates/${id}/versions/${v2.current_version_id}`)).body;
    assert.equal(published.published, true);
    assert.deepEqual(published.document, v2.document);
    // a subject change keeps the document; html alone drops it
    await t.api('PATCH', `/templates/${id}`, { body: { subject: 'Hi' } });
    assert.deepEqual((await t.api('GET', `/templates/${id}`)).body.document, v2.document);
    await t.api('PATCH', `/templates/${id}`, { body: { html: '<p>by hand</p>' } });
    const v4 = (await t.api('GET', `/templates/${id}`)).body;
    assert.equal(v4.document, null);
    assert.equal(v4.html, '<p>by hand</p>');
    const versions = (await t.api('GET', `/templates/${id}/versions`)).body.data;
    assert.deepEqual(
      versions.map((v: { number: number; document: unknown }) => [v.number, v.document === null]),
      [
        [4, true],
        [3, false],
        [2, false],
        [1, true],
      ],
    );
    // the published version still has its document
    const stillPublished = (await t.api('GET', `/templates/${id}/versions/${v2.current_version_id}`)).body;
    assert.deepEqual(stillPublished.document, v2.document);
    const bad = await t.api('PATCH', `/templates/${id}`, { body: { document: { version: 1, blocks: 'x' } } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /`document\.blocks`/);
  });

  test('/openapi.json documents the render route and the document field as Mailroom extensions', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    assert.ok(doc.paths['/templates/render']?.post, 'POST /templates/render');
    const fieldOf = (p: string, m: string) =>
      doc.paths[p][m].requestBody.content['application/json'].schema.properties.document;
    for (const [p, m] of [
      ['/templates/render', 'post'],
      ['/templates', 'post'],
      ['/templates/{id}', 'patch'],
      ['/broadcasts', 'post'],
      ['/broadcasts/{id}', 'patch'],
    ])
      assert.match(fieldOf(p, m)?.description ?? '', /^Mailroom: the visual editor's document/, `${m} ${p}`);
  });

  test("the Resend SDK's templates.create and get work as before (document is an extension field)", async () => {
    const created = await t.resend.templates.create({ name: 'SDK', html: '<p>Hi {{{NAME|you}}}</p>' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    const got = await t.resend.templates.get(created.data!.id);
    assert.equal(got.error, null);
    assert.equal(got.data!.html, '<p>Hi {{{NAME|you}}}</p>');
    assert.equal((got.data as unknown as { document: unknown }).document, null);
    // a template saved from the editor (the SDK sends no document: it builds its own body) reads
    // through the SDK like any other, its html being the rendering
    const withDoc = await t.api('POST', '/templates', { body: { name: 'Editor', document: sampleDocument() } });
    const got2 = await t.resend.templates.get(withDoc.body.id);
    assert.equal(got2.error, null, JSON.stringify(got2.error));
    assert.ok(got2.data!.html.includes('{{{RESEND_UNSUBSCRIBE_URL}}}'));
    const doc = (got2.data as unknown as { document: { blocks: unknown[] } }).document;
    assert.equal(doc.blocks.length, 7);
    // and an SDK update of its html turns it into a raw HTML template
    const upd = await t.resend.templates.update(withDoc.body.id, { html: '<p>hand-written</p>' });
    assert.equal(upd.error, null, JSON.stringify(upd.error));
    assert.equal((await t.api('GET', `/templates/${withDoc.body.id}`)).body.document, null);
  });
});

// POST /templates/:id/preview with `draft`: the editor's unsaved subject, html, text and variables
// rendered over the working copy without saving it (no new version), checked as PATCH checks them,
// and the text a send derives from the html when the template has none.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';

describe('template preview of unsaved content', () => {
  let t: CaptureApp;
  let id: string;

  before(async () => {
    t = await startCaptureApp();
    const c = await t.resend.templates.create({
      name: 'Receipt',
      subject: 'Hi {{{WHO}}}',
      html: '<p>{{{WHO}}} paid</p>',
      variables: [{ key: 'WHO', type: 'string', fallbackValue: 'you' }],
    });
    assert.equal(c.error, null, JSON.stringify(c.error));
    id = c.data!.id;
  });
  after(async () => {
    await t?.close();
  });

  test('the draft is rendered with the sample values and nothing is saved', async () => {
    const r = await t.api('POST', `/templates/${id}/preview`, {
      body: {
        variables: { WHO: 'Ann & Co', TOTAL: 12 },
        draft: {
          subject: 'Receipt for {{{WHO}}}',
          html: '<h1>{{{WHO}}} owes {{{TOTAL}}}</h1>',
          variables: [
            { key: 'WHO', type: 'string', fallback_value: 'you' },
            { key: 'TOTAL', type: 'number' },
          ],
        },
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.subject, 'Receipt for Ann & Co');
    assert.equal(r.body.html, '<h1>Ann &amp; Co owes 12</h1>');
    assert.equal(r.body.text, null);
    assert.match(r.body.generated_text, /Ann & Co owes 12/i);
    assert.deepEqual(r.body.missing, []);
    const missing = await t.api('POST', `/templates/${id}/preview`, {
      body: { draft: { html: '<p>{{{NEW}}}</p>', text: 'Plain {{{WHO}}}' } },
    });
    assert.deepEqual(
      [missing.status, missing.body.html, missing.body.text, missing.body.generated_text, missing.body.missing],
      [200, '<p>{{{NEW}}}</p>', 'Plain you', null, ['NEW']],
    );
    const saved = (await t.resend.templates.get(id)).data!;
    assert.deepEqual(
      [saved.subject, saved.html, saved.has_unpublished_versions],
      ['Hi {{{WHO}}}', '<p>{{{WHO}}} paid</p>', true],
    );
    const versions = await t.api('GET', `/templates/${id}/versions`);
    assert.equal(versions.body.data.length, 1);
  });

  test('bad draft content is a 422 naming the field', async () => {
    const cases: [unknown, RegExp][] = [
      ['nope', /`draft`/],
      [{ html: '' }, /`draft.html`/],
      [{ subject: 'two\nlines' }, /`subject`/],
      [{ variables: [{ key: 'FIRST_NAME', type: 'string' }] }, /FIRST_NAME/],
    ];
    for (const [draft, re] of cases) {
      const r = await t.api('POST', `/templates/${id}/preview`, { body: { draft } });
      assert.equal(r.status, 422, JSON.stringify([draft, r.body]));
      assert.match(r.body.message, re);
    }
  });
});

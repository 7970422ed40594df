// GET|POST /broadcasts/:id/preview over HTTP: the broadcast rendered as one contact would get it
// (first name, a property and its fallback, HTML-escaped values, the preview text as preheader),
// unsaved content laid over the saved draft, errors naming the field, other teams kept out, and
// nothing stored or sent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Resend } from 'resend';
import { otherTeamClient } from '../../helpers/harness.js';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';

describe('broadcast preview as a contact', () => {
  let t: CaptureApp;
  let other: Resend;
  let broadcast: string;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startCaptureApp();
    other = await otherTeamClient(t, 'Other team');
    const segment = (await t.resend.segments.create({ name: 'Readers' })).data!.id;
    await t.resend.contactProperties.create({ key: 'city', type: 'string', fallbackValue: 'your town' });
    for (const p of [
      { email: 'ann@dest.test', firstName: 'Ann', properties: { city: 'Oslo' } },
      { email: 'bob@dest.test', firstName: 'Bob & <Co>' },
    ]) {
      const c = await t.resend.contacts.create({ ...p, segments: [{ id: segment }] } as never);
      assert.equal(c.error, null, JSON.stringify(c.error));
      ids[p.email] = c.data!.id;
    }
    const b = await t.resend.broadcasts.create({
      name: 'Weekly',
      segmentId: segment,
      from: 'News <news@example.com>',
      subject: 'Hi {{{contact.first_name|friend}}}',
      previewText: 'Inside: news',
      html: '<p>Hello {{{contact.first_name|there}}} from {{{contact.city}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>',
      text: 'Hello {{{FIRST_NAME|there}}}',
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    broadcast = b.data!.id;
  });
  after(async () => {
    await t?.close();
  });

  test("GET by contact_id renders the saved broadcast with the contact's data", async () => {
    const r = await t.api('GET', `/broadcasts/${broadcast}/preview?contact_id=${ids['ann@dest.test']}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.object, 'broadcast_preview');
    assert.equal(r.body.id, broadcast);
    assert.deepEqual(r.body.contact, {
      id: ids['ann@dest.test'],
      email: 'ann@dest.test',
      first_name: 'Ann',
      last_name: null,
    });
    assert.equal(r.body.to, 'ann@dest.test');
    assert.equal(r.body.from, 'News <news@example.com>');
    assert.equal(r.body.subject, 'Hi Ann');
    assert.match(r.body.html, /^<div style="display:none[^"]*">Inside: news<\/div><p>Hello Ann from Oslo<\/p>/);
    // The unsubscribe link is the send path's, per email: left as written here.
    assert.match(r.body.html, /href="\{\{\{RESEND_UNSUBSCRIBE_URL\}\}\}"/);
    assert.equal(r.body.text, 'Hello Ann');
  });

  test("by email: a contact's values are escaped in HTML and property fallbacks apply; an address that is no contact gets the tag fallbacks", async () => {
    const bob = await t.api('GET', `/broadcasts/${broadcast}/preview?email=${encodeURIComponent('BOB@dest.test')}`);
    assert.equal(bob.status, 200, JSON.stringify(bob.body));
    assert.equal(bob.body.contact.id, ids['bob@dest.test']);
    assert.equal(bob.body.subject, 'Hi Bob & <Co>');
    assert.match(bob.body.html, /<p>Hello Bob &amp; &lt;Co&gt; from your town<\/p>/);
    const stranger = await t.api('GET', `/broadcasts/${broadcast}/preview?email=someone@else.test`);
    assert.equal(stranger.status, 200, JSON.stringify(stranger.body));
    assert.equal(stranger.body.contact, null);
    assert.equal(stranger.body.subject, 'Hi friend');
    assert.match(stranger.body.html, /<p>Hello there from your town<\/p>/);
  });

  test('POST lays unsaved content over the draft without saving it', async () => {
    const r = await t.api('POST', `/broadcasts/${broadcast}/preview`, {
      body: {
        contact_id: ids['ann@dest.test'],
        subject: 'News for {{{contact.first_name}}}',
        html: '<h1>{{{contact.first_name}}} in {{{contact.city|?}}}</h1>',
        preview_text: null,
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.subject, 'News for Ann');
    assert.equal(r.body.html, '<h1>Ann in Oslo</h1>');
    const saved = (await t.resend.broadcasts.get(broadcast)).data!;
    assert.equal(saved.subject, 'Hi {{{contact.first_name|friend}}}');
    assert.equal(saved.preview_text, 'Inside: news');
  });

  test("bad input is a 422 naming the field; unknown or another team's broadcast is a 404; nothing is sent", async () => {
    const cases: [string, string, unknown, number, RegExp][] = [
      ['GET', `/broadcasts/${broadcast}/preview`, undefined, 422, /Missing `contact_id` or `email` field/],
      ['GET', `/broadcasts/${broadcast}/preview?contact_id=nope`, undefined, 422, /`contact_id`/],
      [
        'GET',
        `/broadcasts/${broadcast}/preview?contact_id=5d3f1c8e-0000-4000-8000-000000000000`,
        undefined,
        422,
        /`contact_id` field: no contact/,
      ],
      ['POST', `/broadcasts/${broadcast}/preview`, { email: 'ann@dest.test', subject: 'two\nlines' }, 422, /`subject`/],
      ['POST', `/broadcasts/${broadcast}/preview`, { email: 'ann@dest.test', from: 'not an address' }, 422, /`from`/],
      ['POST', `/broadcasts/${broadcast}/preview`, { email: 42 }, 422, /`email`/],
      [
        'GET',
        '/broadcasts/5d3f1c8e-0000-4000-8000-000000000000/preview?email=a@b.test',
        undefined,
        404,
        /Broadcast not found/,
      ],
    ];
    for (const [method, path, body, status, re] of cases) {
      const r = await t.api(method, path, body === undefined ? {} : { body });
      assert.equal(r.status, status, JSON.stringify([path, body, r.body]));
      assert.match(r.body.message, re);
      assert.ok(typeof r.body.name === 'string' && r.body.statusCode === status, JSON.stringify(r.body));
    }
    const key = (other as unknown as { key: string }).key;
    const theirs = await t.api('GET', `/broadcasts/${broadcast}/preview?email=ann@dest.test`, { key });
    assert.equal(theirs.status, 404, JSON.stringify(theirs.body));
    const emails = await t.db.pool.query('SELECT count(*)::int AS n FROM emails');
    assert.equal(emails.rows[0].n, 0);
  });

  test('/openapi.json documents both preview routes', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    assert.ok(doc.paths['/broadcasts/{id}/preview']?.get, 'GET');
    assert.ok(doc.paths['/broadcasts/{id}/preview']?.post, 'POST');
  });
});

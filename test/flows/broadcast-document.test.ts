// A broadcast built in the visual editor (issue 30), end to end: a template saved with a document
// and published, a broadcast composed from it (template_id copies the published document), edited
// as a document, sent to a segment through the recording MX: each contact's copy is MJML's email
// HTML with that contact's first name filled in and a working unsubscribe link of its own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { startMailWorld, type MailWorld } from '../helpers/mail-world.js';
import type { RecordedMessage } from '../helpers/recording-smtp.js';
import { sampleDocument } from '../helpers/email-document.js';
import { freePort } from '../helpers/free-port.js';

const listUnsubscribeUrl = (m: RecordedMessage) => {
  const raw = m.raw.toString('binary');
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
  return /^List-Unsubscribe: <(https?:\/\/[^>]+)>/im.exec(head)![1];
};

describe('a broadcast saved with a document, delivered to a segment', () => {
  let w: MailWorld;
  let segment: string;
  before(async () => {
    // The unsubscribe links point at the app itself, so that the test can follow them.
    const port = await freePort();
    w = await startMailWorld({ httpListen: { host: '127.0.0.1', port }, publicUrl: `http://127.0.0.1:${port}` });
    segment = (await w.t.resend.segments.create({ name: 'Readers' })).data!.id;
    for (const [email, firstName] of [
      ['ann@dest.test', 'Ann'],
      ['bob@dest.test', 'Bob & <Co>'],
      ['cy@dest.test', undefined],
    ]) {
      const c = await w.t.resend.contacts.create({ email, firstName, segments: [{ id: segment }] } as never);
      assert.equal(c.error, null, JSON.stringify(c.error));
    }
  });
  after(async () => {
    await w?.close();
  });

  test('composed from a published template, edited, sent: each copy greets its contact and unsubscribes them', async () => {
    const api = w.t.api;
    const tpl = await api('POST', '/templates', {
      body: { name: 'Weekly', from: 'News <news@example.com>', subject: 'Weekly news', document: sampleDocument() },
    });
    assert.equal(tpl.status, 201, JSON.stringify(tpl.body));
    // Never published: nothing to compose from yet.
    const early = await api('POST', '/broadcasts', { body: { segment_id: segment, template_id: tpl.body.id } });
    assert.equal(early.status, 422);
    assert.match(early.body.message, /`template_id`.*publish/);
    await api('POST', `/templates/${tpl.body.id}/publish`);
    const both = await api('POST', '/broadcasts', {
      body: { segment_id: segment, template_id: tpl.body.id, html: '<p>x</p>' },
    });
    assert.equal(both.status, 422);

    const created = await api('POST', '/broadcasts', {
      body: { name: 'From the editor', segment_id: segment, template_id: tpl.body.id },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id;
    const draft = (await api('GET', `/broadcasts/${id}`)).body;
    const published = (await api('GET', `/templates/${tpl.body.id}`)).body;
    assert.deepEqual(draft.document, published.document, "the published version's document is copied");
    assert.equal(draft.from, 'News <news@example.com>');
    assert.equal(draft.subject, 'Weekly news');
    assert.equal(draft.html, published.html);

    // Edited in the editor: the heading now names the contact, with a fallback.
    const doc = structuredClone(draft.document);
    doc.blocks[0] = { type: 'heading', id: 'h1', text: 'Hello {{{contact.first_name|friend}}}!', level: 1 };
    const refused = await api('PATCH', `/broadcasts/${id}`, { body: { document: doc, html: '<p>x</p>' } });
    assert.equal(refused.status, 422);
    assert.match(refused.body.message, /`html`/);
    // The review step previews the unsaved document as one contact gets it.
    const preview = await api('POST', `/broadcasts/${id}/preview`, { body: { email: 'ann@dest.test', document: doc } });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.ok(preview.body.html.includes('Hello Ann!'), preview.body.html.slice(0, 300));
    const patched = await api('PATCH', `/broadcasts/${id}`, { body: { document: doc } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const edited = (await api('GET', `/broadcasts/${id}`)).body;
    assert.equal(edited.document.blocks[0].text, 'Hello {{{contact.first_name|friend}}}!');
    assert.deepEqual(
      (await api('GET', `/templates/${tpl.body.id}`)).body.document,
      published.document,
      'the template keeps its own',
    );
    const copy = await api('POST', `/broadcasts/${id}/duplicate`);
    assert.deepEqual((await api('GET', `/broadcasts/${copy.body.id}`)).body.document, edited.document);
    await api('DELETE', `/broadcasts/${copy.body.id}`);

    const sent = await api('POST', `/broadcasts/${id}/send`, { body: {} });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const msgs = await w.mx.waitFor(3, 30_000);
    const greeting: Record<string, string> = {
      'ann@dest.test': 'Hello Ann!',
      'bob@dest.test': 'Hello Bob &amp; &lt;Co&gt;!',
      'cy@dest.test': 'Hello friend!',
    };
    for (const m of msgs) {
      const to = m.rcptTo[0];
      const mail = await simpleParser(m.raw);
      const html = String(mail.html);
      assert.ok(html.includes(greeting[to]), `${to}: ${html.slice(0, 200)}`);
      assert.doesNotMatch(html, /\{\{\{/, 'every tag filled');
      assert.match(html, /<!--\[if mso/);
      assert.match(html, /<table/);
      assert.match(
        mail.text ?? '',
        new RegExp(`^${greeting[to].replace(/&amp;/, '&').replace(/&lt;/, '<').replace(/&gt;/, '>')}`),
      );
      // The footer's link is this recipient's own, the one List-Unsubscribe names.
      const url = listUnsubscribeUrl(m);
      assert.ok(html.includes(`href="${url}"`), `${to}: the footer links ${url}`);
      assert.match(html, new RegExp(`href="${url.replace(/[.?*+^$()[\]{}|\\/]/g, '\\$&')}"[^>]*>Unsubscribe</a>`));
    }
    assert.deepEqual(msgs.map((m) => m.rcptTo[0]).sort(), Object.keys(greeting));

    // The link works: it opens the preference page, and its one-click POST unsubscribes Ann.
    const ann = msgs.find((m) => m.rcptTo[0] === 'ann@dest.test')!;
    const url = listUnsubscribeUrl(ann);
    assert.equal((await fetch(url)).status, 200);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(res.status, 200);
    const contact = await w.t.resend.contacts.get({ email: 'ann@dest.test' } as never);
    assert.equal(contact.data!.unsubscribed, true);
  });

  test('a template that declares variables cannot be composed from (the broadcast has no values for them)', async () => {
    const tpl = await w.t.api('POST', '/templates', {
      body: { name: 'Vars', html: '<p>{{{PRODUCT}}}</p>', variables: [{ key: 'PRODUCT', type: 'string' }] },
    });
    await w.t.api('POST', `/templates/${tpl.body.id}/publish`);
    const r = await w.t.api('POST', '/broadcasts', {
      body: { segment_id: segment, from: 'news@example.com', subject: 's', template_id: tpl.body.id },
    });
    assert.equal(r.status, 422);
    assert.match(r.body.message, /declares variables \(PRODUCT\)/);
  });
});

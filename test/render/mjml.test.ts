// The document renderer (render/mjml*.ts): its output is email-client-safe HTML (MJML's tables,
// inline styles, Outlook conditional comments, dark-mode rules), its personalization tags survive
// MJML byte for byte so the per-recipient renderer fills them, and the rendering runs in the
// worker thread: the event loop stays free, and a flood beyond the queue bound is a 503.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.js';
import type { EmailDocument } from '../../src/render/document-types.js';
import { renderDocumentHere } from '../../src/render/mjml-render.js';
import { RENDER_QUEUE, renderDocument } from '../../src/render/mjml.js';
import { compile, render } from '../../src/render/personalize.js';
import { checkDocument } from '../../src/templates/document.js';
import { sampleDocument } from '../helpers/email-document.js';
import { watchLoop } from '../helpers/loop-watch.js';

const doc = (d: unknown): EmailDocument => checkDocument(d).document;
const big = () =>
  doc({
    version: 1,
    blocks: Array.from({ length: 200 }, (_, i) =>
      i % 2
        ? {
            type: 'text',
            id: `t${i}`,
            html: `<p>Paragraph ${i} for {{{contact.first_name|you}}} <a href="https://x.test/${i}">link</a></p>`,
          }
        : { type: 'heading', id: `h${i}`, text: `Heading ${i}`, level: 2 },
    ),
  });

test('the output is email-client-safe: table layout, inline styles, Outlook conditionals, no script, dark mode', async () => {
  const r = await renderDocumentHere(doc(sampleDocument()));
  const h = r.html;
  assert.match(h, /^<!doctype html>/i);
  assert.match(h, /<table[^>]*role="presentation"/, 'layout in presentation tables');
  assert.ok((h.match(/<table/g) ?? []).length >= 5);
  assert.match(h, /<!--\[if mso \| IE\]>/, "Outlook's ghost tables");
  assert.match(h, /<!--\[if mso\]>/);
  assert.match(h, /<div style="font-family:Helvetica, Arial, sans-serif;[^"]*color:#111827;/, 'text styles inline');
  assert.match(
    h,
    /<a href="https:\/\/example\.com\/shop"[^>]*style="display:inline-block;background:#0f766e;/,
    'button inline',
  );
  assert.match(
    h,
    /<a href="https:\/\/example\.com\/news\?a=1&amp;b=2" style="color: #0f766e;">/,
    'link colour inlined',
  );
  assert.match(h, /mj-column-per-50/, 'two columns that stack below 480 px');
  assert.match(h, /@media only screen and \(min-width:480px\)/);
  assert.match(h, /<meta name="color-scheme" content="light dark">/);
  assert.match(h, /@media \(prefers-color-scheme: dark\)/);
  assert.match(h, /\.mr-dark \.mr-content/);
  assert.match(h, /<body class="mr-body"/);
  assert.doesNotMatch(h, /<script|javascript:|fonts\.googleapis/i);
  assert.match(h, /Our news this week/, 'the preheader');
  assert.deepEqual(r.warnings, []);
});

test('personalization tags pass through MJML unchanged and the per-recipient renderer fills every one', async () => {
  const r = await renderDocumentHere(
    doc({
      version: 1,
      blocks: [
        { type: 'heading', id: 'h', text: 'Hi {{{contact.first_name|Tom & Jerry}}}', level: 1 },
        {
          type: 'text',
          id: 't',
          html: '<p>{{{contact.city|your town}}} — {{{contact.email}}} {{{FIRST_NAME|there}}}</p>',
        },
        {
          type: 'button',
          id: 'b',
          text: 'For {{{contact.first_name|you}}}',
          href: '{{{contact.site|https://x.test}}}',
        },
        { type: 'image', id: 'i', src: 'https://x.test/i.png', alt: 'Photo of {{{contact.first_name|you}}}' },
        { type: 'footer', id: 'f', html: '<p>Bye</p>', unsubscribe: true },
      ],
    }),
  );
  for (const tag of [
    '{{{contact.first_name|Tom & Jerry}}}',
    '{{{contact.city|your town}}}',
    '{{{contact.email}}}',
    '{{{FIRST_NAME|there}}}',
    '{{{contact.site|https://x.test}}}',
    '{{{RESEND_UNSUBSCRIBE_URL}}}',
  ])
    assert.ok(r.html.includes(tag), tag);
  const filled = render(compile(r.html, { html: true }), {
    contact: { email: 'ann@x.test', first_name: 'Ann <3', properties: { city: 'Oslo', site: 'https://ann.test' } },
    unsubscribeUrl: 'https://mail.test/u/abc',
  });
  assert.doesNotMatch(filled, /\{\{\{/);
  assert.match(filled, /Hi Ann &lt;3<\/h1>/);
  assert.match(filled, /Oslo — ann@x\.test Ann &lt;3/);
  assert.match(filled, /href="https:\/\/ann\.test"/);
  assert.match(filled, /alt="Photo of Ann &lt;3"/);
  assert.match(filled, /<a href="https:\/\/mail\.test\/u\/abc"[^>]*>Unsubscribe<\/a>/);
  const nobody = render(compile(r.html, { html: true }), { contact: { email: 'x@x.test' } });
  assert.match(nobody, /Hi Tom &amp; Jerry<\/h1>/, 'the fallback escaped once');
  const text = render(compile(r.text, { html: false }), {
    contact: { email: 'x@x.test' },
    unsubscribeUrl: 'https://u',
  });
  assert.match(text, /^Hi Tom & Jerry\n/);
  assert.match(text, /Unsubscribe: https:\/\/u$/);
});

test('the unsubscribe link is there exactly when the footer asks for it', async () => {
  const footer = (unsubscribe: boolean) =>
    doc({ version: 1, blocks: [{ type: 'footer', id: 'f', html: 'Acme', unsubscribe }] });
  assert.match((await renderDocumentHere(footer(true))).html, /href="\{\{\{RESEND_UNSUBSCRIBE_URL\}\}\}"/);
  const without = await renderDocumentHere(footer(false));
  assert.doesNotMatch(without.html + without.text, /RESEND_UNSUBSCRIBE_URL/);
});

test('rendering in the worker leaves the event loop free, and gives what rendering here gives', async () => {
  const d = big();
  await renderDocument(d); // the worker's start (loading MJML) is not what is measured
  const t0 = performance.now();
  const here = await renderDocumentHere(d);
  const hereMs = performance.now() - t0;
  const watch = watchLoop();
  const t1 = performance.now();
  const there = await renderDocument(d);
  const thereMs = performance.now() - t1;
  const stalls = watch.stop();
  assert.equal(there.html, here.html);
  console.log(
    `200 blocks: ${here.html.length} bytes; here ${hereMs.toFixed(0)} ms, in the worker ${thereMs.toFixed(0)} ms; loop busy at most ${stalls.worstBusyMs} ms`,
  );
  assert.ok(
    stalls.worstBusyMs < Math.max(50, hereMs / 2),
    `the loop was busy ${stalls.worstBusyMs} ms (a render here takes ${hereMs.toFixed(0)} ms)`,
  );
});

test(`more than ${RENDER_QUEUE} renders at once: the excess is refused with 503 at once, the rest complete`, async () => {
  const d = doc(sampleDocument());
  const results = await Promise.allSettled(Array.from({ length: RENDER_QUEUE + 8 }, () => renderDocument(d)));
  const refused = results.filter((r) => r.status === 'rejected');
  assert.equal(refused.length, 8);
  for (const r of refused) {
    const err = (r as PromiseRejectedResult).reason;
    assert.ok(err instanceof AppError && err.status === 503, String(err));
  }
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, RENDER_QUEUE);
});

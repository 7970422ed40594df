import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { UI_DIST } from '../../src/http/dashboard/ui.js';

test('the dashboard is built (npm ci runs npm run build)', () => {
  assert.ok(fs.existsSync(path.join(UI_DIST, 'index.html')), 'ui/dist/index.html is missing: run npm run build');
});

describe('the dashboard is served beside the API without hiding its JSON errors', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('/ and client routes under /dashboard/ answer the SPA with a strict CSP', async () => {
    for (const p of ['/', '/dashboard', '/dashboard/emails/123', '/dashboard/reset/abc']) {
      const r = await fetch(t.url + p);
      assert.equal(r.status, 200, p);
      assert.match(r.headers.get('content-type')!, /text\/html/);
      assert.match(r.headers.get('content-security-policy')!, /script-src 'self'/);
      assert.equal(r.headers.get('x-frame-options'), 'DENY');
      assert.equal(r.headers.get('referrer-policy'), 'no-referrer');
      const html = await r.text();
      assert.match(html, /<div id="app">/);
      assert.doesNotMatch(html, /https?:\/\/(?!localhost)/, 'no CDN or remote font');
    }
  });

  test('built assets are served with long caching', async () => {
    const html = await (await fetch(t.url + '/')).text();
    const js = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const r = await fetch(t.url + js);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('cache-control')!, /max-age=31536000/);
    assert.ok((await r.arrayBuffer()).byteLength > 1000);
  });

  test('scripts and styles go out compressed when the client accepts it, and plain when it does not', async () => {
    const html = await (await fetch(t.url + '/')).text();
    const js = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1];
    const plain = fs.readFileSync(path.join(UI_DIST, js));
    const br = await fetch(t.url + js, { headers: { 'accept-encoding': 'br' } });
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.ok(Number(br.headers.get('content-length')) < plain.length / 2, 'at least halved');
    assert.deepEqual(Buffer.from(await br.arrayBuffer()), plain);
    const gz = await fetch(t.url + js, { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.deepEqual(Buffer.from(await gz.arrayBuffer()), plain);
    const none = await fetch(t.url + js, { headers: { 'accept-encoding': 'identity' } });
    assert.equal(none.headers.get('content-encoding'), null);
    assert.equal(Number(none.headers.get('content-length')), plain.length);
    const css = /href="(\/assets\/[^"]+\.css)"/.exec(html)![1];
    assert.equal(
      (await fetch(t.url + css, { headers: { 'accept-encoding': 'gzip, br' } })).headers.get('content-encoding'),
      'br',
    );
  });

  test("API paths keep Resend's JSON 404 and 401", async () => {
    for (const p of ['/nope', '/emails/nope/deeper', '/assets/missing.js', '/dashboard-api/nope']) {
      const r = await t.api('GET', p, { key: null });
      assert.equal(r.status, 404, p);
      assert.equal(r.body.name, 'not_found', p);
    }
    const r = await t.api('GET', '/emails', { key: null });
    assert.equal(r.status, 401);
    assert.equal(r.body.name, 'missing_api_key');
  });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyTracking, listUnsubscribeUrls } from '../../src/tracking/apply.js';
import { TrackingSigner } from '../../src/tracking/tokens.js';
import { detectProxy, isMachineOpen } from '../../src/tracking/proxies.js';

const signer = new TrackingSigner('instance-secret');
const emailId = '0b4e28ba-2fa1-41d2-883f-0016d3cca427';
const opts = { emailId, openTracking: true, clickTracking: true, baseUrl: 'https://mail.example.net', sign: signer };
const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/gi)].map((m) => m[1]);

test('rewrites http(s) links to signed redirects that carry the original link', () => {
  const out = applyTracking(
    '<p><a class="b" href="https://shop.test/a?x=1&amp;y=2">Buy</a> <A HREF=\'http://x.test/\'>x</A></p>',
    opts,
  );
  const [a, b] = hrefs(out);
  assert.match(a, /^https:\/\/mail\.example\.net\/t\/c\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  assert.deepEqual(signer.verifyClick(a.split('/t/c/')[1]), { emailId, url: 'https://shop.test/a?x=1&y=2' });
  assert.deepEqual(signer.verifyClick(b.split('/t/c/')[1]), { emailId, url: 'http://x.test/' });
  assert.match(out, /<a class="b" href="[^"]+">Buy<\/a>/);
});

test('leaves mailto:, relative links, unsubscribe links and the List-Unsubscribe URL alone', () => {
  const html = [
    '<a href="mailto:help@example.com">Mail us</a>',
    '<a href="#top">Top</a>',
    '<a href="/local">Local</a>',
    '<a href="https://example.com/unsubscribe?u=1">Leave</a>',
    '<a href="https://example.com/prefs">Unsubscribe</a>',
    '<a href="https://example.com/l/xyz">Opt out</a>',
    '<a data-mailroom-notrack href="https://example.com/raw">Raw</a>',
  ].join('');
  const out = applyTracking(html, {
    ...opts,
    openTracking: false,
    unsubscribeUrls: listUnsubscribeUrls('<https://example.com/l/xyz>, <mailto:u@example.com>'),
  });
  assert.equal(out, html);
});

test('adds the pixel before </body>, or at the end without one; nothing when tracking is off', () => {
  const withBody = applyTracking('<html><body><p>Hi</p></body></html>', { ...opts, clickTracking: false });
  assert.match(
    withBody,
    /<p>Hi<\/p><img src="https:\/\/mail\.example\.net\/t\/o\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.gif" width="1" height="1"[^>]*><\/body><\/html>$/,
  );
  const token = /\/t\/o\/([^"]+)\.gif/.exec(withBody)![1];
  assert.equal(signer.verifyOpen(token), emailId);
  assert.match(applyTracking('<p>Hi</p>', { ...opts, clickTracking: false }), /^<p>Hi<\/p><img /);
  const html = '<p><a href="https://x.test">x</a></p>';
  assert.equal(applyTracking(html, { ...opts, openTracking: false, clickTracking: false }), html);
});

test('refuses altered, unsigned and foreign tokens (no open redirect)', () => {
  const token = signer.clickToken(emailId, 'https://good.test/');
  const [payload, tag] = token.split('.');
  const evil = Buffer.concat([
    Buffer.from(payload, 'base64url').subarray(0, 16),
    Buffer.from('https://evil.test/'),
  ]).toString('base64url');
  assert.equal(signer.verifyClick(`${evil}.${tag}`), null);
  assert.equal(signer.verifyClick(`${payload}.${tag.slice(0, -2)}AA`), null);
  assert.equal(signer.verifyClick(payload), null);
  assert.equal(signer.verifyClick(''), null);
  assert.equal(new TrackingSigner('another-instance').verifyClick(token), null);
  assert.equal(signer.verifyOpen(token), null, 'a click token is no open token');
  assert.equal(signer.verifyClick(signer.openToken(emailId)), null, 'an open token is no click token');
});

test('flags opens by mail-privacy proxies', () => {
  assert.equal(detectProxy('17.58.1.2', 'Mozilla/5.0'), 'apple_mpp');
  assert.equal(detectProxy('203.0.113.9', 'Mozilla/5.0'), 'apple_mpp');
  assert.equal(
    detectProxy(
      '66.249.1.1',
      'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
    ),
    'google_image_proxy',
  );
  assert.equal(
    detectProxy(
      '198.51.100.7',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)',
    ),
    null,
  );
  assert.equal(isMachineOpen('apple_mpp'), true);
  assert.equal(isMachineOpen('google_image_proxy'), false);
});

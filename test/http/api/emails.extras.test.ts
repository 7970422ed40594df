import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';

const PDF = Buffer.from('%PDF-1.4\n% a tiny document\n%%EOF\n');
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201ffa65d5c0000000049454e44ae426082',
  'hex',
);

describe('attachments of sent emails, share links and usage, through the SDK', () => {
  let t: TestApp;
  let emailId: string;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
    const sent = await t.resend.emails.send({
      from: 'a@example.com',
      to: 'b@example.org',
      subject: 'With files',
      html: '<p>Hi <img src="cid:logo"></p><script>alert(1)</script>',
      attachments: [
        { filename: 'doc.pdf', content: PDF },
        { filename: 'logo.png', content: PNG, contentId: 'logo' },
      ],
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    emailId = sent.data!.id;
  });
  after(async () => {
    await t.close();
  });
  /** Links are on MAILROOM_PUBLIC_URL; the test server listens elsewhere. */
  const local = (u: string) => {
    const x = new URL(u);
    return `${t.url}${x.pathname}${x.search}`;
  };

  test('emails.attachments.list and get describe each attachment with a working signed download link', async () => {
    const list = await t.resend.emails.attachments.list({ emailId });
    assert.equal(list.error, null, JSON.stringify(list.error));
    assert.equal(list.data!.object, 'list');
    const files = [...list.data!.data].sort((a, b) => a.filename!.localeCompare(b.filename!)); // in MIME order
    assert.deepEqual(
      files.map((a) => [a.filename, a.content_type, a.size, a.content_disposition]),
      [
        ['doc.pdf', 'application/pdf', PDF.length, 'attachment'],
        ['logo.png', 'image/png', PNG.length, 'inline'],
      ],
    );
    assert.equal(files[1].content_id, 'logo');
    const one = await t.resend.emails.attachments.get({ emailId, id: files[0].id });
    assert.equal(one.data!.object, 'attachment');
    assert.equal(one.data!.id, files[0].id, 'ids are stable');
    const res = await fetch(local(one.data!.download_url));
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(PDF));
    assert.ok(Date.parse(one.data!.expires_at) > Date.now());
    const tampered = one.data!.download_url.replace(
      /signature=(.)/,
      (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`,
    );
    assert.equal((await fetch(local(tampered))).status, 404);
    assert.equal(
      (await t.resend.emails.attachments.get({ emailId, id: '00000000-0000-4000-8000-000000000000' })).error?.name,
      'not_found',
    );
  });

  test('another team sees neither the attachments nor a share of the email', async () => {
    const other = await otherTeamClient(t, 'Others');
    assert.equal((await other.emails.attachments.list({ emailId })).error?.name, 'not_found');
    assert.equal((await other.emails.share(emailId)).error?.name, 'not_found');
  });

  test('emails.share gives a public link that shows the email sandboxed, changes nothing, and expires', async () => {
    const shared = await t.resend.emails.share(emailId, { expiresIn: '1h' });
    assert.equal(shared.error, null, JSON.stringify(shared.error));
    assert.equal(shared.data!.object, 'email');
    assert.equal(shared.data!.id, emailId);
    const page = await fetch(local(shared.data!.url));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type')!, /^text\/html/);
    assert.match(page.headers.get('content-security-policy')!, /default-src 'none'.*sandbox/);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.match(await page.text(), /<p>Hi /);
    const expires = Number(new URL(shared.data!.url).searchParams.get('expires'));
    assert.ok(expires * 1000 - Date.now() > 59 * 60_000 && expires * 1000 - Date.now() <= 3600_000);
    const forged = new URL(shared.data!.url);
    forged.searchParams.set('expires', String(expires + 3600));
    assert.equal((await fetch(local(forged.toString()))).status, 404, 'the expiry is signed');
    assert.equal((await t.resend.emails.share(emailId, { expiresIn: 'forever' })).error?.name, 'validation_error');
    assert.equal((await t.resend.emails.get(emailId)).data!.last_event, 'delivered', 'viewing changed nothing');
  });

  test('emails.share takes durations as Resend writes them ("10m", "2 hours", "1 day", "1h 30m") and a POST with no body', async () => {
    const ttl = async (expiresIn: string) => {
      const r = await t.resend.emails.share(emailId, { expiresIn });
      assert.equal(r.error, null, `${expiresIn}: ${JSON.stringify(r.error)}`);
      return Number(new URL(r.data!.url).searchParams.get('expires')) * 1000 - Date.now();
    };
    const near = (ms: number, want: number) => assert.ok(ms > want - 60_000 && ms <= want, `${ms} near ${want}`);
    near(await ttl('10m'), 600_000);
    near(await ttl('2 hours'), 7_200_000);
    near(await ttl('1 day'), 86_400_000);
    near(await ttl('1h 30m'), 5_400_000);
    for (const bad of ['1h foo', '10x', '-5m', '59s']) {
      assert.equal((await t.resend.emails.share(emailId, { expiresIn: bad })).error?.name, 'validation_error', bad);
    }
    // The Go SDK posts no body when no option is given, with and without a JSON content type.
    for (const headers of [{}, { 'content-type': 'application/json' }] as Record<string, string>[]) {
      const r = await fetch(`${t.url}/emails/${emailId}/share`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.key}`, ...headers },
      });
      assert.equal(r.status, 200, `${JSON.stringify(headers)}: ${await r.clone().text()}`);
      assert.equal(((await r.json()) as { object: string }).object, 'email');
    }
  });

  test('emails.share expires after 48 hours by default and at most, as in Resend; longer only by setting', async () => {
    const ttl = async (expiresIn?: string) => {
      const r = await t.resend.emails.share(emailId, expiresIn === undefined ? undefined : { expiresIn });
      assert.equal(r.error, null, `${expiresIn}: ${JSON.stringify(r.error)}`);
      return Number(new URL(r.data!.url).searchParams.get('expires')) * 1000 - Date.now();
    };
    const near = (ms: number, want: number) => assert.ok(ms > want - 60_000 && ms <= want, `${ms} near ${want}`);
    near(await ttl(), 48 * 3600_000);
    const bare = await t.api('POST', `/emails/${emailId}/share`);
    assert.equal(bare.status, 200);
    near(Number(new URL(bare.body.url).searchParams.get('expires')) * 1000 - Date.now(), 48 * 3600_000);
    near(await ttl('48h'), 48 * 3600_000);
    near(await ttl('2 days'), 48 * 3600_000);
    for (const over of ['49h', '3 days', '2d 1m']) {
      const r = await t.resend.emails.share(emailId, { expiresIn: over });
      assert.equal(r.error?.name, 'validation_error', over);
      assert.match(r.error!.message, /48 hours/);
    }
    const longer = await startTestApp({ deliveryMode: 'capture', shareMaxHours: 24 * 7 }, { db: t.db });
    try {
      const r = await longer.resend.emails.share(emailId, { expiresIn: '7 days' });
      assert.equal(r.error, null, JSON.stringify(r.error));
      near(Number(new URL(r.data!.url).searchParams.get('expires')) * 1000 - Date.now(), 7 * 86_400_000);
      const d = await longer.resend.emails.share(emailId);
      near(Number(new URL(d.data!.url).searchParams.get('expires')) * 1000 - Date.now(), 48 * 3600_000);
      assert.equal((await longer.resend.emails.share(emailId, { expiresIn: '8d' })).error?.name, 'validation_error');
    } finally {
      await longer.close();
    }
  });

  test("usage counts the team's emails and reports the rate limit", async () => {
    const u = await t.resend.usage.get();
    assert.equal(u.error, null, JSON.stringify(u.error));
    assert.equal(u.data!.object, 'usage');
    assert.equal(u.data!.emails.daily.sent, 1);
    assert.equal(u.data!.emails.monthly.sent, 1);
    assert.equal(u.data!.domains.used, 1);
    assert.equal(u.data!.rate_limit.limit, 1000);
    assert.ok(Date.parse(u.data!.emails.daily.resets_at) > Date.now());
  });
});

// Insights are computed off the request path (issue 16's speed rule): POST /emails, POST
// /emails/batch and SMTP submission store the email with insights NULL (proved with no worker
// running, so nothing else can have analyzed it yet); a worker sharing the database then analyzes
// each at its first delivery attempt without any read asking; a scheduled email (no attempt yet)
// is analyzed by its first GET /emails/:id/insights, and that result is stored once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/harness.js';
import { listener, queuedId, RawSmtp, SMTP_TEST_LISTENERS } from '../helpers/smtp-submit.js';
import { until } from '../helpers/until.js';
import { waitForLastEvent } from '../helpers/mail-world.js';
import { suppressionAdd } from '../../src/store/suppressions.js';
import { closeAll } from '../helpers/close-all.js';

const BAD_HTML = '<p>Read <a href="https://bit.ly/3xYz12">the offers</a>.</p>';

test('the request path stores emails unanalyzed; the worker analyzes them at the first attempt; GET analyzes a scheduled one', {
  timeout: 120_000,
}, async () => {
  const t = await startTestApp({ roles: ['api', 'smtp'], smtpListen: SMTP_TEST_LISTENERS, deliveryMode: 'capture' });
  let worker: Awaited<ReturnType<typeof startTestApp>> | undefined;
  try {
    const d = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(d.data!.id);
    const single = await t.resend.emails.send({
      from: 'Acme <no-reply@example.com>',
      to: 'ada@dest.test',
      subject: 'LAST CHANCE',
      html: BAD_HTML,
    });
    assert.equal(single.error, null);
    const batch = await t.resend.batch.send([
      { from: 'Acme <hello@example.com>', to: 'bob@dest.test', subject: 'Offers', html: BAD_HTML },
      { from: 'Acme <hello@example.com>', to: 'cy@dest.test', subject: 'Your receipt', text: 'Thanks for your order.' },
    ]);
    assert.equal(batch.error, null);
    const c = await RawSmtp.connect(listener(t, 'tls'), { tls: true });
    await c.reply();
    await c.cmd('EHLO client.test');
    assert.match(await c.login(t.key), /^235 /);
    assert.match(await c.cmd('MAIL FROM:<noreply@example.com>'), /^250 /);
    assert.match(await c.cmd('RCPT TO:<dee@dest.test>'), /^250 /);
    assert.match(await c.cmd('DATA'), /^354 /);
    c.write(
      'From: noreply@example.com\r\nTo: dee@dest.test\r\nSubject: Over SMTP\r\nContent-Type: text/html\r\n\r\n<p>Hello <a href="https://bit.ly/q">there</a></p>\r\n.\r\n',
    );
    const smtpId = queuedId(await c.reply());
    await c.cmd('QUIT').catch(() => undefined);
    const sent = [single.data!.id, ...batch.data!.data.map((e) => e.id), smtpId];

    const rows = async () =>
      (
        await t.db.pool.query<{ id: string; insights: { id: string }[] | null }>(
          'SELECT id, insights FROM emails WHERE id = ANY($1::uuid[])',
          [sent],
        )
      ).rows;
    const before = await rows();
    assert.equal(before.length, 4);
    for (const r of before) assert.equal(r.insights, null, `email ${r.id} was analyzed on the request path`);

    // A worker on the same database delivers them and analyzes each at its first attempt.
    worker = await startTestApp({ roles: ['worker'], deliveryMode: 'capture' }, { db: t.db });
    const after = await until(
      'the worker analyzed every email',
      async () => {
        const rs = await rows();
        return (
          rs.every((r) => r.insights !== null) && new Map(rs.map((r) => [r.id, r.insights!.map((f) => f.id).sort()]))
        );
      },
      60_000,
    );
    assert.deepEqual(after.get(single.data!.id), [
      'link-domain-mismatch',
      'link-shortener',
      'no-reply-address',
      'subject-all-caps',
    ]);
    assert.deepEqual(after.get(batch.data!.data[0].id), ['link-domain-mismatch', 'link-shortener']);
    assert.deepEqual(after.get(batch.data!.data[1].id), []);
    assert.deepEqual(after.get(smtpId), [
      'link-domain-mismatch',
      'link-shortener',
      'no-reply-address',
      'text-part-missing',
    ]);
    const got = await t.api('GET', `/emails/${single.data!.id}/insights`);
    assert.equal(got.body.analyzed, true);
    assert.deepEqual(got.body.data.map((f: { id: string }) => f.id).sort(), after.get(single.data!.id));

    // Scheduled: no attempt for a day, so the first read analyzes it and stores the result.
    const later = await t.resend.emails.send({
      from: 'Acme <hello@example.com>',
      to: 'eve@dest.test',
      subject: 'Tomorrow',
      html: BAD_HTML,
      scheduledAt: new Date(Date.now() + 86_400_000).toISOString(),
    });
    assert.equal(later.error, null);
    const stored = async () =>
      (await t.db.pool.query('SELECT insights FROM emails WHERE id = $1', [later.data!.id])).rows[0].insights;
    assert.equal(await stored(), null);
    const first = await t.api('GET', `/emails/${later.data!.id}/insights`);
    assert.equal(first.status, 200);
    assert.equal(first.body.analyzed, true);
    assert.deepEqual(first.body.data.map((f: { id: string }) => f.id).sort(), [
      'link-domain-mismatch',
      'link-shortener',
    ]);
    assert.deepEqual((await stored()).map((f: { id: string }) => f.id).sort(), [
      'link-domain-mismatch',
      'link-shortener',
    ]);
    assert.deepEqual((await t.api('GET', `/emails/${later.data!.id}/insights`)).body, first.body);
  } finally {
    await closeAll(
      () => worker?.close(),
      () => t.close(),
    );
  }
});

test('an email held for a suppressed recipient gets its compose findings from the delivery job all the same', {
  timeout: 60_000,
}, async () => {
  const t = await startTestApp({ deliveryMode: 'capture' });
  try {
    const d = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(d.data!.id);
    await suppressionAdd(t.db.pool, t.app.defaultTeamId, 'gone@dest.test', 'manual', null);
    const { data, error } = await t.resend.emails.send({
      from: 'Acme <no-reply@example.com>',
      to: 'gone@dest.test',
      subject: 'Offers',
      html: BAD_HTML,
    });
    assert.equal(error, null);
    await waitForLastEvent(t, data!.id, ['suppressed']);
    // Read straight from the row: no GET may have analyzed it.
    const stored = await until(
      'the held email analyzed',
      async () =>
        (await t.db.pool.query('SELECT insights FROM emails WHERE id = $1', [data!.id])).rows[0].insights as
          | { id: string }[]
          | null,
      15_000,
    );
    assert.deepEqual(stored.map((f) => f.id).sort(), ['link-domain-mismatch', 'link-shortener', 'no-reply-address']);
  } finally {
    await t.close();
  }
});

test("a broadcast's emails (which keep no body) are analyzed by their delivery jobs from the body rendered for them", {
  timeout: 90_000,
}, async () => {
  const t = await startTestApp({ deliveryMode: 'capture' });
  try {
    const d = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(d.data!.id);
    const seg = (await t.resend.segments.create({ name: 'Readers' })).data!.id;
    for (const email of ['ann@dest.test', 'bob@dest.test']) {
      assert.equal(
        (await t.resend.contacts.create({ email, firstName: email.split('@')[0], segments: [{ id: seg }] } as never))
          .error,
        null,
      );
    }
    const b = await t.resend.broadcasts.create({
      name: 'News',
      segmentId: seg,
      from: 'News <news@example.com>',
      subject: 'Hi {{{FIRST_NAME}}}',
      send: true,
      html: '<p>Hello {{{contact.first_name}}}, <a href="https://bit.ly/3xYz12">read this</a>.</p>',
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    const rows = await until(
      'both broadcast emails analyzed',
      async () => {
        const { rows: rs } = await t.db.pool.query<{ html: string | null; insights: { id: string }[] | null }>(
          'SELECT html, insights FROM emails WHERE broadcast_id = $1',
          [b.data!.id],
        );
        return rs.length === 2 && rs.every((r) => r.insights !== null) && rs;
      },
      60_000,
    );
    for (const r of rows) {
      // Nothing in the row to read: the findings come from the rendered body (the link), and
      // Mailroom's own one-click unsubscribe headers count (no list-unsubscribe-missing).
      assert.equal(r.html, null);
      assert.deepEqual(r.insights!.map((f) => f.id).sort(), ['link-domain-mismatch', 'link-shortener']);
    }
  } finally {
    await t.close();
  }
});

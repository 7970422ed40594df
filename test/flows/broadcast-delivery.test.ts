// Broadcasts delivered to a recording MX (mx mode, fake DNS): each recipient's copy carries its own
// RFC 8058 headers, the List-Id and the Feedback-ID, under a DKIM signature that verifies; the
// expansion stays within its window of undelivered emails; a copy deferred in its run is retried
// alone, held by pause; and hard bounces past the threshold pause the broadcast with the reason shown.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { nudgeDeliveries, receiverAuth, startMailWorld, type MailWorld } from '../helpers/mail-world.js';
import type { RecordedMessage } from '../helpers/recording-smtp.js';
import { broadcastGet } from '../helpers/mailroom-wire.js';
import { sleep } from '../../src/lib/time.js';
import { deliverJobsHoldForBroadcast, deliverJobsReleaseForBroadcast } from '../../src/store/jobs.js';

const headerBlock = (m: RecordedMessage) => {
  const raw = m.raw.toString('binary');
  return raw.slice(0, raw.indexOf('\r\n\r\n')).replace(/\r\n[ \t]+/g, ' ');
};

describe('broadcasts delivered over SMTP', () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld({
      broadcastPageSize: 10,
      broadcastQueueWindow: 10,
      broadcastPauseMinSample: 20,
      broadcastPauseBounceRate: 0.05,
    });
  });
  after(async () => {
    await w?.close();
  });

  async function segmentOf(name: string, emails: string[]): Promise<string> {
    const seg = (await w.t.resend.segments.create({ name })).data!.id;
    for (const email of emails) {
      const c = await w.t.resend.contacts.create({
        email,
        firstName: email.split('@')[0],
        segments: [{ id: seg }],
      } as never);
      assert.equal(c.error, null, JSON.stringify(c.error));
    }
    return seg;
  }

  test('each copy has its own List-Unsubscribe, the List-Id and the Feedback-ID, signed with DKIM that verifies', async () => {
    const people = ['ann@dest.test', 'bob@dest.test', 'cy@dest.test'];
    const seg = await segmentOf('Headers', people);
    const b = await w.t.resend.broadcasts.create({
      name: 'Monthly',
      segmentId: seg,
      from: 'News <news@example.com>',
      subject: 'Hi {{{FIRST_NAME}}}',
      html: '<p>Hello {{{contact.first_name}}}</p>',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    const msgs = await w.mx.waitFor(3, 20_000);
    const teamId = w.t.app.defaultTeamId;
    const urls = new Set<string>();
    for (const m of msgs) {
      const head = headerBlock(m);
      const lu = /^List-Unsubscribe: <(https?:\/\/[^>]+)>, <mailto:[^>]+>$/im.exec(head);
      assert.ok(lu, head);
      urls.add(lu[1]);
      assert.match(head, /^List-Unsubscribe-Post: List-Unsubscribe=One-Click$/im);
      assert.match(head, /^List-Id: "Monthly" <[0-9a-f]{32}\.example\.com>$/im);
      assert.match(head, new RegExp(`^Feedback-ID: ${b.data!.id}:${teamId}:broadcast:mailroom$`, 'mi'));
      assert.equal((await receiverAuth(w.dns, m)).dkim, 'pass');
      const dkimH = /^DKIM-Signature: .*\bh=([^;]+)/im.exec(head)![1].replace(/\s+/g, '').toLowerCase();
      assert.match(dkimH, /list-unsubscribe/);
      const mail = await simpleParser(m.raw);
      assert.equal(mail.subject, `Hi ${m.rcptTo[0].split('@')[0]}`);
    }
    assert.equal(urls.size, 3, 'one link per recipient');
    assert.deepEqual(msgs.flatMap((m) => m.rcptTo).sort(), people);
  });

  test('a copy deferred in its run is retried alone, on the ladder, held by a pause, and delivered once', async () => {
    w.mx.messages.length = 0;
    w.dns.set('other.test', 'MX', [{ exchange: 'mx1.dest.test', priority: 10 }]); // a second destination domain, same MX
    const people = ['ava@dest.test', 'ben@dest.test', 'cal@dest.test', 'dot@other.test'];
    const seg = await segmentOf('Deferred', people);
    let answer: 'defer' | 'accept' = 'defer';
    w.mx.onRcpt = (a) =>
      a === 'ben@dest.test' && answer === 'defer' ? { code: 451, message: '4.3.0 Try later' } : undefined;
    const b = await w.t.resend.broadcasts.create({
      segmentId: seg,
      from: 'news@example.com',
      subject: 'x',
      text: 'x',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    const retry = async () =>
      (
        await w.t.db.pool.query<{
          payload: { email_id: string; recipients: string[]; broadcast_id: string };
          later: boolean;
          held: boolean;
        }>(
          "SELECT payload, run_at > now() AS later, run_at = 'infinity' AS held FROM jobs WHERE kind = 'email.deliver' AND payload->>'broadcast_id' = $1",
          [b.data!.id],
        )
      ).rows;
    for (let i = 0; (await retry()).length === 0; i++) {
      assert.ok(i < 400, 'a retry job for the deferred copy');
      await sleep(50);
    }
    const [job] = await retry();
    assert.deepEqual(job.payload.recipients, ['ben@dest.test']);
    assert.ok(job.later && !job.held, 'on the retry ladder, not due at once');
    for (let i = 0; w.mx.messages.length < 3; i++) {
      assert.ok(i < 400, 'the other copies delivered');
      await sleep(50);
    }
    assert.deepEqual(w.mx.messages.flatMap((m) => m.rcptTo).sort(), [
      'ava@dest.test',
      'cal@dest.test',
      'dot@other.test',
    ]);
    // A pause holds it and a resume lets it go, due at once (the statements pause and resume run:
    // this broadcast, expanded already, is `sent` and can no longer be paused through the API).
    assert.equal(await deliverJobsHoldForBroadcast(w.t.db.pool, b.data!.id), 1);
    assert.equal((await retry())[0].held, true);
    answer = 'accept';
    assert.equal(await deliverJobsReleaseForBroadcast(w.t.db.pool, b.data!.id), 1);
    for (let i = 0; !w.mx.messages.some((m) => m.rcptTo.includes('ben@dest.test')); i++) {
      assert.ok(i < 400, 'delivered after the resume');
      await sleep(50);
    }
    await nudgeDeliveries(w.t);
    await sleep(300);
    assert.deepEqual(w.mx.messages.flatMap((m) => m.rcptTo).sort(), [
      'ava@dest.test',
      'ben@dest.test',
      'cal@dest.test',
      'dot@other.test',
    ]);
    assert.deepEqual(await retry(), []);
    w.mx.onRcpt = () => undefined;
  });

  test('hard bounces past 5% pause the broadcast with the reason; the expansion never runs far ahead of delivery', async () => {
    w.mx.messages.length = 0;
    const people = Array.from({ length: 80 }, (_, i) => (i % 4 === 0 ? `bad${i}@dest.test` : `good${i}@dest.test`));
    const seg = await segmentOf('Bouncy', people);
    w.mx.onRcpt = (a) => (a.startsWith('bad') ? { code: 550, message: '5.1.1 No such user' } : undefined);
    const b = await w.t.resend.broadcasts.create({
      segmentId: seg,
      from: 'news@example.com',
      subject: 'x',
      text: 'x',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    let most = 0;
    let got: any;
    for (let i = 0; ; i++) {
      const q = (
        await w.t.db.pool.query(
          "SELECT count(*)::int AS n FROM emails WHERE broadcast_id = $1 AND last_event = 'sent'",
          [b.data!.id],
        )
      ).rows[0].n;
      most = Math.max(most, q);
      got = (await w.t.resend.broadcasts.get(b.data!.id)).data!;
      if (got.status === 'paused' || got.status === 'sent') break;
      assert.ok(i < 600, `should pause: ${JSON.stringify(got.stats)}`);
      await sleep(50);
    }
    assert.equal(got.status, 'paused', JSON.stringify(got));
    assert.match(
      got.pause_reason,
      /^hard-bounce rate \d+\.\d+% \(\d+ of \d+\) passed 5\.00% \(MAILROOM_BROADCAST_PAUSE_BOUNCE_RATE\)$/,
    );
    assert.ok(got.stats.recipients < people.length, `paused before the end: ${got.stats.recipients}`);
    assert.ok(most <= 20, `at most a window (10) and a page (10) undelivered at once, saw ${most}`);
    const bounced = await w.t.resend.broadcasts.recipients(b.data!.id, {
      type: 'bounced',
      bounceType: 'permanent',
    } as never);
    assert.ok(
      bounced.data!.data.length >= 1 &&
        bounced.data!.data.every((r: any) => r.email.startsWith('bad') && r.bounce_type === 'permanent'),
      JSON.stringify(bounced.data),
    );
    // Nothing more is expanded while it is paused.
    const before = got.stats.recipients;
    await sleep(700);
    assert.equal((await broadcastGet(w.t.resend, b.data!.id)).stats.recipients, before);
    // The user may cancel it; its undelivered emails are canceled with it.
    const c = await w.t.resend.broadcasts.cancel(b.data!.id);
    assert.equal(c.error, null, JSON.stringify(c.error));
    w.mx.onRcpt = () => undefined;
  });
});

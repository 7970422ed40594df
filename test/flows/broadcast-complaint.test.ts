// A complaint (an ARF feedback report at the VERP return path, through Mailroom's own MX listener)
// on a broadcast's email: the complaint webhook names the broadcast, and a complaint rate past
// MAILROOM_BROADCAST_PAUSE_COMPLAINT_RATE pauses the broadcast with the reason shown.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { arfComplaint } from '../fixtures/reports.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';

describe('a complaint on a broadcast email', () => {
  let w: InboundWorld;
  let rcv: Receiver;
  before(async () => {
    w = await startInboundWorld({
      broadcastPageSize: 5,
      broadcastQueueWindow: 5,
      broadcastPauseMinSample: 5,
      broadcastPauseComplaintRate: 0.003,
    });
    rcv = await startReceiver();
    assert.equal((await w.t.resend.webhooks.create({ endpoint: rcv.url, events: ['email.complained'] })).error, null);
  });
  after(() =>
    closeAll(
      () => rcv?.close(),
      () => w?.close(),
    ),
  );

  test('one complaint in the first deliveries pauses the broadcast at 0.3%; the webhook carries broadcast_id', async () => {
    const seg = (await w.t.resend.segments.create({ name: 'Many' })).data!.id;
    for (let i = 0; i < 40; i++) {
      assert.equal(
        (await w.t.resend.contacts.create({ email: `reader${i}@dest.test`, segments: [{ id: seg }] } as never)).error,
        null,
      );
    }
    const b = await w.t.resend.broadcasts.create({
      segmentId: seg,
      from: 'News <news@example.com>',
      subject: 'Weekly',
      html: '<p>Hello</p>',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    const msg = await (async () => {
      for (let i = 0; i < 400; i++) {
        const m = w.mx.messages.find((x) => x.rcptTo[0]?.startsWith('reader'));
        if (m) return m;
        await sleep(50);
      }
      throw new Error('no broadcast email reached the MX');
    })();
    const rcpt = msg.rcptTo[0];
    const messageId = /^Message-ID: (<[^>]+>)/im.exec(msg.raw.toString())![1];
    const { response } = await w.deliver(
      arfComplaint(
        { returnPath: msg.mailFrom, messageId, from: 'news@example.com', to: [rcpt], subject: 'Weekly' },
        rcpt,
      ),
      { from: 'fbl@fbl.dest.test', to: [msg.mailFrom] },
      { sign: false },
    );
    assert.match(response, /^250 /);

    const hook = JSON.parse((await rcv.waitFor(1, 15_000))[0].body);
    assert.equal(hook.type, 'email.complained');
    assert.equal(hook.data.broadcast_id, b.data!.id);
    let got: any;
    for (let i = 0; ; i++) {
      got = (await w.t.resend.broadcasts.get(b.data!.id)).data!;
      if (got.status !== 'sending' && got.status !== 'queued') break;
      assert.ok(i < 400, 'the broadcast should pause');
      await sleep(50);
    }
    assert.equal(got.status, 'paused', JSON.stringify(got.stats));
    assert.match(
      got.pause_reason,
      /^complaint rate \d+\.\d+% \(1 of \d+\) passed 0\.30% \(MAILROOM_BROADCAST_PAUSE_COMPLAINT_RATE\)$/,
    );
    assert.ok(got.stats.recipients < 40, `paused before the end: ${got.stats.recipients}`);
    assert.equal(got.stats.complained, 1);
    const complained = await w.t.resend.broadcasts.recipients(b.data!.id, { type: 'complained' });
    assert.deepEqual(
      complained.data!.data.map((r) => r.email),
      [rcpt],
    );
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startRecordingSmtp } from '../helpers/recording-smtp.js';
import { nudgeDeliveries, startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';

describe('a receiving server that misbehaves leads to retries, never to losses', () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld();
  });
  after(async () => {
    await w.close();
  });

  const send = async (to: string) =>
    (await w.t.resend.emails.send({ from: 'hello@example.com', to, subject: 'trouble', text: 'x' })).data!.id;
  const types = async (id: string) =>
    (await w.t.api('GET', `/emails/${id}/events`)).body.data.map((e: { type: string }) => e.type);

  test('connections dropped after DATA: deferred, then delivered once the server behaves', async () => {
    w.mx.dropConnections = true;
    const id = await send('drop@dest.test');
    try {
      await waitForLastEvent(w.t, id, ['delivery_delayed']);
    } finally {
      w.mx.dropConnections = false;
    }
    await nudgeDeliveries(w.t);
    await waitForLastEvent(w.t, id, ['delivered']);
    assert.deepEqual(
      (await types(id)).filter((t: string) => t !== 'email.delivery_attempt'),
      ['email.sent', 'email.delivery_delayed', 'email.delivered'],
    );
  });

  test('a slow server (seconds per reply) still gets the message', async () => {
    w.mx.delayMs = 1500;
    try {
      const id = await send('slow@dest.test');
      await waitForLastEvent(w.t, id, ['delivered'], 30_000);
    } finally {
      w.mx.delayMs = 0;
    }
  });

  test('the server going away mid-run: deferred while it is down, delivered when it is back on the same port', async () => {
    const port = w.mx.port;
    await w.mx.close();
    const id = await send('away@dest.test');
    await waitForLastEvent(w.t, id, ['delivery_delayed']);
    const ev = (await w.t.api('GET', `/emails/${id}/events`)).body.data.find(
      (e: { type: string }) => e.type === 'email.delivery_delayed',
    );
    assert.match(ev.detail.response, /refused|ECONNREFUSED|connect/i);
    w.mx = await startRecordingSmtp({ port });
    await nudgeDeliveries(w.t);
    await waitForLastEvent(w.t, id, ['delivered']);
    assert.ok(w.mx.messages.some((m) => m.rcptTo.includes('away@dest.test')));
  });
});

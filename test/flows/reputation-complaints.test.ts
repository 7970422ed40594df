// The reputation guard's judgement through real mail: a bounce among too few recipients trips
// nothing (MAILROOM_REPUTATION_MIN_SAMPLE); past it, hard bounces put the domain in warning; a
// complaint (an ARF report at the VERP return path, through Mailroom's own MX listener) pauses it;
// each change is a domain.updated webhook; with MAILROOM_REPUTATION_PAUSE_TRANSACTIONAL API sends
// are refused too; Prometheus shows the rates and the state.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { arfComplaint } from '../fixtures/reports.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { waitForLastEvent } from '../helpers/mail-world.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

describe('the reputation guard judges bounces and complaints', () => {
  let w: InboundWorld;
  let rcv: Receiver;
  before(async () => {
    w = await startInboundWorld({
      reputationMinSample: 5,
      reputationBounceWarn: 0.1,
      reputationBounceAct: 1, // bounces only warn here; the complaint acts (default 0.3%)
      reputationPauseTransactional: true,
      metricsToken: 'scrape-secret',
    });
    w.mx.onRcpt = (a) => (a.startsWith('bad') ? { code: 550, message: '5.1.1 No such user' } : undefined);
    rcv = await startReceiver();
    assert.equal((await w.t.resend.webhooks.create({ endpoint: rcv.url, events: ['domain.updated'] })).error, null);
  });
  after(() =>
    closeAll(
      () => rcv?.close(),
      () => w?.close(),
    ),
  );

  const send = async (to: string) => {
    const r = await w.t.resend.emails.send({
      from: 'Acme <hello@example.com>',
      to,
      subject: 'Hello',
      html: '<p>Hi</p>',
    });
    assert.equal(r.error, null, JSON.stringify(r.error));
    return r.data!.id;
  };
  const checksDone = () =>
    until(
      'no reputation check pending',
      async () =>
        (await w.t.db.pool.query("SELECT count(*)::int AS n FROM jobs WHERE kind = 'reputation.check'")).rows[0].n ===
        0,
      30_000,
    );
  const state = async () => (await w.t.api('GET', `/domains/${w.domainId}/reputation`)).body;
  const hooks = () =>
    rcv.received
      .map((r) => JSON.parse(r.body))
      .filter((h) => h.type === 'domain.updated' && h.data.reputation)
      .map((h) => h.data.reputation);

  test('1 bounce of 3 trips nothing; 2 of 7 warn; a complaint pauses; API sends are refused; Prometheus shows it', async () => {
    await waitForLastEvent(w.t, await send('ok0@dest.test'), ['delivered'], 30_000);
    await waitForLastEvent(w.t, await send('ok1@dest.test'), ['delivered'], 30_000);
    await waitForLastEvent(w.t, await send('bad0@dest.test'), ['bounced'], 30_000);
    await checksDone();
    let rep = await state();
    assert.equal(rep.rates.last_hour.sample, 3);
    assert.equal(rep.rates.last_hour.bounce_rate, 1 / 3);
    assert.equal(rep.state, 'ok', 'below the minimum sample a 33% bounce rate is not judged');

    for (let i = 2; i < 6; i++) await waitForLastEvent(w.t, await send(`ok${i}@dest.test`), ['delivered'], 30_000);
    await waitForLastEvent(w.t, await send('bad1@dest.test'), ['bounced'], 30_000);
    const warned = await until('a warning webhook', async () => hooks().find((h) => h.state === 'warning'), 30_000);
    assert.match(
      warned.reason,
      /^hard-bounce rate 25\.00% over the last hour \(2 of 8\) reached 10\.00% \(MAILROOM_REPUTATION_BOUNCE_WARN\)$/,
    );
    rep = await state();
    assert.equal(rep.state, 'warning');
    // A warning stops nothing.
    await waitForLastEvent(w.t, await send('ok6@dest.test'), ['delivered'], 30_000);

    const msg = w.mx.messages.find((m) => m.rcptTo[0] === 'ok0@dest.test')!;
    const messageId = /^Message-ID: (<[^>]+>)/im.exec(msg.raw.toString())![1];
    const { response } = await w.deliver(
      arfComplaint(
        { returnPath: msg.mailFrom, messageId, from: 'hello@example.com', to: ['ok0@dest.test'], subject: 'Hello' },
        'ok0@dest.test',
      ),
      { from: 'fbl@fbl.dest.test', to: [msg.mailFrom] },
      { sign: false },
    );
    assert.match(response, /^250 /);
    const paused = await until('a paused webhook', async () => hooks().find((h) => h.state === 'paused'), 30_000);
    assert.equal(paused.previous_state, 'warning');
    assert.match(
      paused.reason,
      /^complaint rate 11\.11% over the last hour \(1 of 9\) reached 0\.30% \(MAILROOM_REPUTATION_COMPLAINT_ACT\)$/,
    );

    // MAILROOM_REPUTATION_PAUSE_TRANSACTIONAL: the API refuses (the send path's cache lasts 2 s).
    const refused = await until(
      'an API send refused',
      async () => {
        const r = await w.t.api('POST', '/emails', {
          body: { from: 'Acme <hello@example.com>', to: 'late@dest.test', subject: 'Hi', html: '<p>Hi</p>' },
        });
        return r.status === 403 && r;
      },
      30_000,
    );
    assert.equal(refused.body.name, 'validation_error');
    assert.match(
      refused.body.message,
      /^The domain `example\.com` is paused by the reputation guard: complaint rate 11\.11%/,
    );

    const metrics = await (
      await fetch(`${w.t.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })
    ).text();
    assert.match(metrics, /^mailroom_domain_reputation_state\{domain="example\.com"\} 2$/m);
    assert.match(metrics, /^mailroom_domain_complaint_rate\{domain="example\.com",window="1h"\} 0\.1111/m);
    assert.match(metrics, /^mailroom_domain_hard_bounce_rate\{domain="example\.com",window="7d"\} 0\.2222/m);
    assert.match(metrics, /^mailroom_domain_reputation_sample\{domain="example\.com",window="7d"\} 9$/m);
  });
});

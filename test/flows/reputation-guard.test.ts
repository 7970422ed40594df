// The reputation guard end to end: transactional mail through the API to a recording MX that
// answers 550 for some recipients crosses MAILROOM_REPUTATION_BOUNCE_ACT; the guard pauses the
// domain: a sending broadcast goes to paused with the guard's reason, a domain.updated webhook
// carries the reason, transactional mail is still delivered, an automation's send_email step is
// held (not failed, nothing sent). A person resumes it through the API: the broadcast resumes, the
// held step sends, and the guard judges only mail from then on.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { until } from '../helpers/until.js';
import { broadcastGet } from '../helpers/mailroom-wire.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';

describe('the reputation guard pauses a domain past the hard-bounce threshold, and a person resumes it', () => {
  let w: MailWorld;
  let rcv: Receiver;
  before(async () => {
    w = await startMailWorld({
      roles: ['api', 'worker'],
      allowPrivateNetworks: true,
      webhookRetrySchedule: [0, 200, 400],
      reputationMinSample: 10, // the bounce thresholds stay the defaults (warn 2%, act 5%)
      broadcastPageSize: 5,
      broadcastQueueWindow: 5,
      broadcastPauseMinSample: 1_000_000, // the broadcast's own pause stays out of the way
    });
    rcv = await startReceiver();
    assert.equal((await w.t.resend.webhooks.create({ endpoint: rcv.url, events: ['domain.updated'] })).error, null);
  });
  after(() =>
    closeAll(
      () => rcv?.close(),
      () => w?.close(),
    ),
  );

  const domainHooks = () =>
    rcv.received.map((r) => JSON.parse(r.body)).filter((h) => h.type === 'domain.updated' && h.data.reputation);
  const send = async (to: string, subject = 'Hello') => {
    const r = await w.t.resend.emails.send({ from: 'Acme <hello@example.com>', to, subject, html: '<p>Hi</p>' });
    assert.equal(r.error, null, JSON.stringify(r.error));
    return r.data!.id;
  };

  test('pauses list mail with the reason, keeps transactional mail flowing, holds automations; resume lets them go', async () => {
    // Broadcast recipients are deferred (451), before and after the resume, so the broadcast stays
    // `sending` behind its full window and the mail judged after the resume is known (see the end).
    w.mx.onRcpt = (a) =>
      a.startsWith('bad')
        ? { code: 550, message: '5.1.1 No such user' }
        : a.startsWith('reader')
          ? { code: 451, message: '4.3.0 Try later' }
          : undefined;
    // An automation whose send_email step will be held.
    const tpl = (
      await w.t.resend.templates.create({
        name: 'Welcome',
        from: 'Acme <hello@example.com>',
        subject: 'Welcome',
        html: '<p>Welcome</p>',
      })
    ).data!.id;
    await w.t.resend.templates.publish(tpl);
    const auto = await w.t.resend.automations.create({
      name: 'Welcome',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'signup' } },
        { key: 'mail', type: 'send_email', config: { template: { id: tpl } } },
      ],
      connections: [{ from: 't', to: 'mail' }],
    } as never);
    assert.equal(auto.error, null, JSON.stringify(auto.error));

    // 10 delivered, then hard bounces: 1 of 11 (9%) passes the 5% act threshold with the sample of 10.
    for (let i = 0; i < 10; i++) await waitForLastEvent(w.t, await send(`ok${i}@dest.test`), ['delivered'], 30_000);
    let rep = (await w.t.api('GET', `/domains/${w.domainId}/reputation`)).body;
    assert.equal(rep.state, 'ok');
    assert.equal(rep.rates.last_hour.delivered, 10);
    // A broadcast to many readers, kept `sending` by its window: their deliveries are deferred (451).
    const seg = (await w.t.resend.segments.create({ name: 'Readers' })).data!.id;
    for (let i = 0; i < 200; i += 20) {
      const rs = await Promise.all(
        Array.from({ length: 20 }, (_, j) =>
          w.t.resend.contacts.create({ email: `reader${i + j}@dest.test`, segments: [{ id: seg }] } as never),
        ),
      );
      for (const r of rs) assert.equal(r.error, null, JSON.stringify(r.error));
    }
    const b = await w.t.resend.broadcasts.create({
      segmentId: seg,
      from: 'News <news@example.com>',
      subject: 'Weekly',
      html: '<p>News</p>',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    await until(
      'the broadcast sending',
      async () => (await broadcastGet(w.t.resend, b.data!.id)).status === 'sending',
      30_000,
    );
    const bounced = await send('bad1@dest.test');
    await waitForLastEvent(w.t, bounced, ['bounced'], 30_000);

    const paused = await until(
      'a domain.updated webhook with the guard paused',
      async () => domainHooks().find((h) => h.data.reputation.state === 'paused'),
      30_000,
    );
    assert.equal(paused.data.id, w.domainId);
    assert.equal(paused.data.name, 'example.com');
    assert.equal(paused.data.reputation.previous_state, 'ok');
    assert.match(
      paused.data.reputation.reason,
      /^hard-bounce rate 9\.09% over the last hour \(1 of 11\) reached 5\.00% \(MAILROOM_REPUTATION_BOUNCE_ACT\)$/,
    );

    rep = (await w.t.api('GET', `/domains/${w.domainId}/reputation`)).body;
    assert.equal(rep.state, 'paused');
    assert.equal(rep.reason, paused.data.reputation.reason);
    assert.deepEqual(rep.thresholds, {
      complaint_rate: { warn: 0.001, act: 0.003 },
      bounce_rate: { warn: 0.02, act: 0.05 },
      min_sample: 10,
    });
    assert.equal(rep.rates.last_7_days.hard_bounced, 1);
    assert.equal(rep.series.length, 168);
    assert.equal(rep.series.at(-1).delivered, 10);
    const alerts = (await w.t.api('GET', '/reputation/alerts')).body;
    assert.deepEqual(
      alerts.data.map((a: any) => [a.name, a.state]),
      [['example.com', 'paused']],
    );

    // The sending broadcast paused with the guard's reason.
    const bp = await until(
      'the broadcast paused',
      async () => {
        const g = await broadcastGet(w.t.resend, b.data!.id);
        return g.status === 'paused' && g;
      },
      30_000,
    );
    assert.match(bp.pause_reason ?? '', /^reputation guard: example\.com is paused: hard-bounce rate 9\.09%/);

    // A broadcast started while the domain is paused pauses at its first page, naming the guard.
    const seg2 = (await w.t.resend.segments.create({ name: 'Late' })).data!.id;
    assert.equal(
      (await w.t.resend.contacts.create({ email: 'late@dest.test', segments: [{ id: seg2 }] } as never)).error,
      null,
    );
    const b2 = await w.t.resend.broadcasts.create({
      segmentId: seg2,
      from: 'News <news@example.com>',
      subject: 'Later',
      html: '<p>Later</p>',
      send: true,
    });
    assert.equal(b2.error, null, JSON.stringify(b2.error));
    const b2p = await until(
      'the late broadcast paused',
      async () => {
        const g = await broadcastGet(w.t.resend, b2.data!.id);
        return g.status === 'paused' && g;
      },
      30_000,
    );
    assert.match(
      b2p.pause_reason ?? '',
      /^sending refused: The domain `example\.com` is paused by the reputation guard: hard-bounce rate 9\.09%/,
    );

    // Transactional mail keeps flowing.
    await waitForLastEvent(w.t, await send('still@dest.test', 'Receipt'), ['delivered'], 30_000);

    // The automation's send step is held: not failed, no email.
    assert.equal((await w.t.resend.contacts.create({ email: 'newbie@dest.test' } as never)).error, null);
    assert.equal((await w.t.resend.events.send({ event: 'signup', email: 'newbie@dest.test' } as never)).error, null);
    const runs = await until(
      'the automation run',
      async () => {
        const r = (await w.t.api('GET', `/automations/${auto.data!.id}/runs`)).body.data;
        return r?.length ? r : undefined;
      },
      30_000,
    );
    const runUrl = `/automations/${auto.data!.id}/runs/${runs[0].id}`;
    await until(
      'the send step started',
      async () => (await w.t.api('GET', runUrl)).body.steps?.find((s: any) => s.key === 'mail')?.status === 'running',
      30_000,
    );
    await sleep(1_500);
    let run = (await w.t.api('GET', runUrl)).body;
    assert.equal(run.status, 'running', JSON.stringify(run));
    assert.equal(run.steps.find((s: any) => s.key === 'mail').status, 'running');
    assert.equal(w.mx.messages.filter((m) => m.rcptTo.includes('newbie@dest.test')).length, 0);

    // Resume by a person (an API key here).
    const res = await w.t.api('POST', `/domains/${w.domainId}/reputation/resume`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.state, 'ok');
    assert.match(res.body.resumed_by, /^api_key:/);
    const again = await w.t.api('POST', `/domains/${w.domainId}/reputation/resume`);
    assert.equal(again.status, 422);
    assert.equal(again.body.name, 'validation_error');
    const lifted = await until(
      'a domain.updated webhook with the guard lifted',
      async () => domainHooks().find((h) => h.data.reputation.previous_state === 'paused'),
      30_000,
    );
    assert.equal(lifted.data.reputation.state, 'ok');

    // The held automation step sends; the broadcast resumes.
    await until(
      'the held automation email delivered',
      async () => w.mx.messages.some((m) => m.rcptTo.includes('newbie@dest.test')),
      60_000,
    );
    run = await until(
      'the run completed',
      async () => {
        const r = (await w.t.api('GET', runUrl)).body;
        return r.status === 'completed' && r;
      },
      30_000,
    );
    const bs = (await w.t.resend.broadcasts.get(b.data!.id)).data!;
    assert.notEqual(bs.status, 'paused', JSON.stringify(bs));
    // Both broadcasts the guard held resume; the late one reaches its reader.
    await until(
      'the late broadcast delivered',
      async () => w.mx.messages.some((m) => m.rcptTo.includes('late@dest.test')),
      60_000,
    );

    // Judged from the resume on: the earlier bounce does not pause it again on the next bounce's look.
    // Since the resume: two deliveries (the automation's, the late broadcast's) and this bounce, a
    // sample under the minimum (10); counted with the earlier mail, 2 hard bounces of 14 would pause.
    await waitForLastEvent(w.t, await send('bad2@dest.test'), ['bounced'], 30_000);
    await sleep(1_000);
    rep = (await w.t.api('GET', `/domains/${w.domainId}/reputation`)).body;
    assert.notEqual(rep.state, 'paused', rep.reason);
  });

  test('a domain of another team, or a bad id, is not found', async () => {
    const r = await w.t.api('GET', '/domains/3f1e0f3c-2c4b-4d3e-9a1b-123456789abc/reputation');
    assert.equal(r.status, 404);
    assert.equal(r.body.name, 'not_found');
    const bad = await w.t.api('POST', '/domains/nope/reputation/resume');
    assert.equal(bad.status, 404);
    const noKey = await w.t.api('GET', `/domains/${w.domainId}/reputation`, { key: null });
    assert.equal(noKey.status, 401);
    assert.equal(noKey.body.name, 'missing_api_key');
  });

  test('/openapi.json documents the reputation routes', async () => {
    const doc = (await w.t.api('GET', '/openapi.json')).body;
    assert.match(doc.paths['/domains/{id}/reputation'].get.summary, /reputation guard/);
    assert.match(doc.paths['/domains/{id}/reputation/resume'].post.summary, /lift a pause/);
    assert.ok(doc.paths['/reputation/alerts'].get);
  });
});

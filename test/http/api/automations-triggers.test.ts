// Automations, second part, through the real resend SDK and HTTP: Mailroom's own happenings as
// triggers and waits (`resend:contact.created`, `resend:email.opened`...), `automation_id` in the
// webhooks of the emails an automation sends, the re-entry setting, and an event that arrives while
// a run is on its way into its wait (made deterministic with an API-only process and a worker
// started later on the same database).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { automationCalls } from '../../helpers/automations.js';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { startTestApp } from '../../helpers/harness.js';
import { freshDatabase } from '../../helpers/db.js';
import { until } from '../../helpers/until.js';
import { automationGet } from '../../helpers/mailroom-wire.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { closeAll } from '../../helpers/close-all.js';

const publicUrl = 'https://track.mailroom.test';

describe('automations: system events, automation_id, re-entry', () => {
  let t: CaptureApp;
  let rcv: Receiver;
  let hello: string;
  let thanks: string;
  let nudge: string;

  const { sendEvent, runsOf, runOf } = automationCalls(() => t);
  const emailsTo = async (to: string) =>
    (
      await t.db.pool.query<{ id: string; subject: string; source: string; automation_id: string | null }>(
        `SELECT id, subject, source, automation_id FROM emails WHERE $1 = ANY (to_addrs) ORDER BY created_at`,
        [to],
      )
    ).rows;
  const template = async (name: string, subject: string, html: string) => {
    const c = await t.resend.templates.create({ name, from: 'Acme <hello@example.com>', subject, html } as never);
    assert.equal(c.error, null, JSON.stringify(c.error));
    assert.equal((await t.resend.templates.publish(c.data!.id)).error, null);
    return c.data!.id;
  };
  const fastForward = async (runId: string, key: string) => {
    const { rowCount } = await t.db.pool.query(
      `UPDATE jobs SET run_at = now() WHERE kind = 'automations.wake' AND key = $1`,
      [`${runId}:${key}:wake`],
    );
    assert.equal(rowCount, 1, 'one wake-up job was scheduled for the step');
    await t.db.pool.query(`SELECT pg_notify('mailroom_jobs', 'automations.wake')`);
  };
  const drained = () =>
    until(
      'the automation jobs to drain',
      async () =>
        (await t.db.pool.query(`SELECT 1 FROM jobs WHERE kind LIKE 'automations.%' AND run_at <= now()`)).rowCount ===
        0,
      20_000,
    );

  before(async () => {
    t = await startCaptureApp({ publicUrl });
    assert.equal((await t.api('PATCH', `/domains/${t.domainId}`, { body: { open_tracking: true } })).status, 200);
    rcv = await startReceiver();
    assert.equal(
      (await t.resend.webhooks.create({ endpoint: rcv.url, events: ['email.sent', 'email.delivered'] })).error,
      null,
    );
    hello = await template('Hello', 'Hello from the automation', '<html><body><p>Hello</p></body></html>');
    thanks = await template('Thanks', 'Thanks for reading', '<p>Thanks</p>');
    nudge = await template('Nudge', 'Did you see our mail?', '<p>Nudge</p>');
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => t.close(),
    ),
  );

  test('a resend: name must be one of the system events (422 naming the step); custom events may not use the prefix', async () => {
    const bad = await t.resend.automations.create({
      name: 'Bad',
      steps: [{ key: 't', type: 'trigger', config: { eventName: 'resend:email.teleported' } }],
      connections: [],
    });
    assert.equal(bad.error?.statusCode, 422);
    assert.match(bad.error!.message, /steps\[0\] \(key "t"\)\.config\.event_name/);
    assert.match(bad.error!.message, /resend:email\.opened/);
    const send = await sendEvent({ event: 'resend:contact.created', email: 'x@dest.test' });
    assert.equal(send.error?.statusCode, 422);
    // Nothing is recorded as a system event while no automation listens for one.
    await t.resend.contacts.create({ email: 'quiet@dest.test' });
    assert.equal((await t.db.pool.query(`SELECT 1 FROM custom_events WHERE name LIKE 'resend:%'`)).rowCount, 0);
  });

  test('resend:contact.created starts a run; its email carries automation_id in the webhooks and has source automation', async () => {
    const c = await t.resend.automations.create({
      name: 'On new contact',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'resend:contact.created' } },
        { key: 'hi', type: 'send_email', config: { template: { id: hello } } },
      ],
      connections: [{ from: 't', to: 'hi' }],
    });
    assert.equal(c.error, null, JSON.stringify(c.error));
    const id = c.data!.id;
    const created = await t.resend.contacts.create({ email: 'newbie@dest.test', firstName: 'New' });
    assert.equal(created.error, null);
    const [run] = await until('a run', async () => {
      const r = await runsOf(id);
      return r.length ? r : undefined;
    });
    await until('the run to complete', async () => (await runOf(id, run.id)).status === 'completed');
    const r = await runOf(id, run.id);
    assert.deepEqual(
      r.steps.map((s) => [s.key, s.status]),
      [
        ['t', 'completed'],
        ['hi', 'completed'],
      ],
    );
    assert.equal((r as { contact_id?: string }).contact_id, created.data!.id);
    const [mail] = await emailsTo('newbie@dest.test');
    assert.deepEqual([mail.subject, mail.source, mail.automation_id], ['Hello from the automation', 'automation', id]);
    // The contact's event history shows the system event.
    const history = await t.api('GET', '/contacts/newbie@dest.test/events');
    assert.deepEqual(
      history.body.data.map((e: { event: string }) => e.event),
      ['resend:contact.created'],
    );
    assert.equal(history.body.data[0].payload.first_name, 'New');
    // Every webhook of the automation's email names the automation, as a broadcast's names the broadcast.
    await until(
      'email.sent and email.delivered webhooks',
      async () => rcv.received.filter((x) => JSON.parse(x.body).data.email_id === mail.id).length >= 2,
      20_000,
    );
    for (const w of rcv.received.map((x) => JSON.parse(x.body)).filter((b) => b.data.email_id === mail.id)) {
      assert.equal(w.data.automation_id, id, `${w.type} names the automation`);
      assert.equal(w.data.broadcast_id, undefined);
    }
    // Updating the contact does not start this automation again (it listens for created only).
    await t.resend.contacts.update({ email: 'newbie@dest.test', lastName: 'Comer' });
    await drained();
    assert.equal((await runsOf(id)).length, 1);
    assert.equal((await t.resend.automations.update(id, { status: 'disabled' })).error, null);
  });

  test('wait_for_event on resend:email.opened: the open (tracking pixel) resumes it; an unopened email takes the timeout', async () => {
    const c = await t.resend.automations.create({
      name: 'Read it?',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'article.published' } },
        { key: 'mail', type: 'send_email', config: { template: { id: hello } } },
        { key: 'opened', type: 'wait_for_event', config: { eventName: 'resend:email.opened', timeout: '2 days' } },
        { key: 'thanks', type: 'send_email', config: { template: { id: thanks } } },
        { key: 'nudge', type: 'send_email', config: { template: { id: nudge } } },
      ],
      connections: [
        { from: 't', to: 'mail' },
        { from: 'mail', to: 'opened' },
        { from: 'opened', to: 'thanks', type: 'event_received' },
        { from: 'opened', to: 'nudge', type: 'timeout' },
      ],
    });
    assert.equal(c.error, null, JSON.stringify(c.error));
    const id = c.data!.id;
    assert.equal((await sendEvent({ event: 'article.published', email: 'reader@dest.test' })).error, null);
    assert.equal((await sendEvent({ event: 'article.published', email: 'skimmer@dest.test' })).error, null);
    const runFor = async (email: string) =>
      (await t.db.pool.query(`SELECT id FROM automation_runs WHERE automation_id = $1 AND email = $2`, [id, email]))
        .rows[0].id as string;
    const reader = await runFor('reader@dest.test');
    const skimmer = await runFor('skimmer@dest.test');
    for (const r of [reader, skimmer])
      await until(
        'the wait',
        async () => (await runOf(id, r)).steps.find((s) => s.key === 'opened')?.status === 'waiting',
        20_000,
      );
    const [first] = await emailsTo('reader@dest.test');
    const { rows } = await t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [first.id]);
    const html = (await simpleParser(rows[0].raw)).html as string;
    const pixel = /src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(html)![1];
    assert.equal((await fetch(pixel.replace(publicUrl, t.url))).status, 200);
    await until("the reader's run to complete", async () => (await runOf(id, reader)).status === 'completed', 20_000);
    const done = await runOf(id, reader);
    assert.deepEqual(
      done.steps.map((s) => [s.key, s.status]),
      [
        ['t', 'completed'],
        ['mail', 'completed'],
        ['opened', 'completed'],
        ['thanks', 'completed'],
      ],
    );
    const out = done.steps.find((s) => s.key === 'opened')!.output as {
      event_received: string;
      payload: { email_id: string };
    };
    assert.equal(out.event_received, 'resend:email.opened');
    assert.equal(out.payload.email_id, first.id);
    assert.deepEqual(
      (await emailsTo('reader@dest.test')).map((e) => e.subject),
      ['Hello from the automation', 'Thanks for reading'],
    );
    await fastForward(skimmer, 'opened');
    await until("the skimmer's run to complete", async () => (await runOf(id, skimmer)).status === 'completed', 20_000);
    assert.deepEqual(
      (await emailsTo('skimmer@dest.test')).map((e) => e.subject),
      ['Hello from the automation', 'Did you see our mail?'],
    );
    assert.equal((await t.resend.automations.stop(id)).error, null);
  });

  const longRunning = (event: string, reentry?: string) =>
    t.api('POST', '/automations', {
      body: {
        name: `Re-entry ${reentry ?? 'default'}`,
        status: 'enabled',
        ...(reentry ? { reentry } : {}),
        steps: [
          { key: 't', type: 'trigger', config: { event_name: event } },
          { key: 'd', type: 'delay', config: { duration: '1 hour' } },
        ],
        connections: [{ from: 't', to: 'd' }],
      },
    });
  const waitingDelay = async (id: string, runId: string) =>
    until(
      'the delay',
      async () => (await runOf(id, runId)).steps.find((s) => s.key === 'd')?.status === 'waiting',
      20_000,
    );

  test('re-entry after_end (the default): a new run only once the previous ended', async () => {
    const c = await longRunning('plan.changed');
    assert.equal(c.status, 201, JSON.stringify(c.body));
    const id = c.body.id;
    assert.equal((await automationGet(t.resend, id)).reentry, 'after_end');
    await sendEvent({ event: 'plan.changed', email: 'again@dest.test' });
    await sendEvent({ event: 'plan.changed', email: 'again@dest.test' });
    const runs = await runsOf(id);
    assert.equal(runs.length, 1, 'the second event started nothing while the first run runs');
    await waitingDelay(id, runs[0].id);
    await fastForward(runs[0].id, 'd');
    await until('the run to complete', async () => (await runOf(id, runs[0].id)).status === 'completed');
    await sendEvent({ event: 'plan.changed', email: 'again@dest.test' });
    assert.equal((await runsOf(id)).length, 2, 'a new run once the previous ended');
    assert.equal((await t.resend.automations.stop(id)).error, null);
  });

  test('re-entry always: a run per event, side by side; never: once per contact, ever; a bad value is a 422', async () => {
    const bad = await longRunning('x.y', 'sometimes');
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /reentry/);
    const always = (await longRunning('cart.updated', 'always')).body.id;
    for (let i = 0; i < 3; i++) await sendEvent({ event: 'cart.updated', email: 'shopper@dest.test' });
    const runs = await runsOf(always);
    assert.equal(runs.length, 3);
    assert.deepEqual(
      runs.map((r) => r.status),
      ['running', 'running', 'running'],
    );

    const never = (await longRunning('signed.up', 'never')).body.id;
    await sendEvent({ event: 'signed.up', email: 'once@dest.test' });
    const [r] = await runsOf(never);
    await waitingDelay(never, r.id);
    await fastForward(r.id, 'd');
    await until('the run to complete', async () => (await runOf(never, r.id)).status === 'completed');
    await sendEvent({ event: 'signed.up', email: 'once@dest.test' });
    assert.equal((await runsOf(never)).length, 1, 'never: the contact ran it once, ever');
    // PATCH changes the setting (never → always): the same contact may now run it again.
    assert.equal((await t.api('PATCH', `/automations/${never}`, { body: { reentry: 'always' } })).status, 200);
    await sendEvent({ event: 'signed.up', email: 'once@dest.test' });
    assert.equal((await runsOf(never)).length, 2);
    for (const id of [always, never]) assert.equal((await t.resend.automations.stop(id)).error, null);
  });
});

describe('an event that arrives while a run moves into its wait is not lost', () => {
  test('the event sent before the worker parks the wait completes it through event_received', async () => {
    const db = await freshDatabase();
    // An API-only process: the run's wait step stays pending (no worker) while the event arrives.
    const api = await startTestApp({ deliveryMode: 'capture', roles: ['api'] }, { db });
    let worker: Awaited<ReturnType<typeof startTestApp>> | undefined;
    try {
      const d = (await api.resend.domains.create({ name: 'example.com' })).data!;
      await api.resend.domains.verify(d.id);
      const tpl = (
        await api.resend.templates.create({
          name: 'Yay',
          from: 'Acme <hello@example.com>',
          subject: 'Activated!',
          html: '<p>yay</p>',
        } as never)
      ).data!.id;
      await api.resend.templates.publish(tpl);
      const c = await api.resend.automations.create({
        name: 'Race',
        status: 'enabled',
        steps: [
          { key: 't', type: 'trigger', config: { eventName: 'user.created' } },
          { key: 'w', type: 'wait_for_event', config: { eventName: 'user.activated', timeout: '1 day' } },
          { key: 'yay', type: 'send_email', config: { template: { id: tpl } } },
          { key: 'late', type: 'send_email', config: { template: { id: tpl } } },
        ],
        connections: [
          { from: 't', to: 'w' },
          { from: 'w', to: 'yay', type: 'event_received' },
          { from: 'w', to: 'late', type: 'timeout' },
        ],
      });
      assert.equal(c.error, null, JSON.stringify(c.error));
      const id = c.data!.id;
      // Both events are recorded and queued by the API; no worker has started the run yet.
      assert.equal((await api.resend.events.send({ event: 'user.created', email: 'racer@dest.test' })).error, null);
      assert.equal(
        (await api.resend.events.send({ event: 'user.activated', email: 'racer@dest.test', payload: { n: 1 } })).error,
        null,
      );
      assert.equal((await db.pool.query('SELECT 1 FROM automation_event_queue')).rowCount, 2);
      assert.equal((await api.resend.automations.runs.list({ automationId: id })).data!.data.length, 0);
      // A worker on the same database takes both in one transaction, in order: user.created starts the
      // run, whose wait step is pending (its job not run yet) when user.activated is handled.
      worker = await startTestApp({ deliveryMode: 'capture', roles: ['worker'] }, { db });
      const [run] = await until(
        'the run',
        async () => {
          const l = (await api.resend.automations.runs.list({ automationId: id })).data!.data;
          return l.length ? l : undefined;
        },
        20_000,
      );
      await until(
        'the run to complete',
        async () =>
          (await api.resend.automations.runs.get({ automationId: id, runId: run.id })).data!.status === 'completed',
        20_000,
      );
      const r = (await api.resend.automations.runs.get({ automationId: id, runId: run.id })).data!;
      assert.deepEqual(
        r.steps.map((s) => [s.key, s.status]),
        [
          ['t', 'completed'],
          ['w', 'completed'],
          ['yay', 'completed'],
        ],
      );
      assert.deepEqual((r.steps[1].output as { event_received: string; payload: unknown }).payload, { n: 1 });
      assert.equal(
        (await db.pool.query(`SELECT 1 FROM jobs WHERE kind = 'automations.wake' AND key = $1`, [`${run.id}:w:wake`]))
          .rowCount,
        0,
        'the wait was never parked: no timeout was scheduled',
      );
    } finally {
      await closeAll(
        () => worker?.close(),
        () => api.close(),
        () => db.drop(),
      );
    }
  });
});

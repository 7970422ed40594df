// Automations through the real resend SDK (resend.automations.*, resend.events.send) in capture
// mode, with fetch and SQL only to look (run steps, emails) and to bring a scheduled wake-up job's
// run_at forward (delays of "1 hour" fire at once instead of after an hour; the job is unchanged).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { automationCalls } from '../../helpers/automations.js';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';

describe('automations through the resend SDK, in capture mode', () => {
  let t: CaptureApp;
  let welcome: string; // template ids
  let tip: string;
  let nudge: string;

  const until = async <T>(what: string, fn: () => Promise<T | undefined | false>, ms = 15_000): Promise<T> => {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn();
      if (v) return v;
      if (Date.now() > end)
        throw new Error(
          `timed out waiting for ${what}: jobs ${JSON.stringify((await t.db.pool.query("SELECT kind, key, state, attempts, run_at, last_error FROM jobs WHERE kind = 'automations.step'")).rows)}`,
        );
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const { sendEvent, runsOf, runOf } = automationCalls(() => t);
  const stepStatus = async (automationId: string, runId: string, key: string) =>
    (await runOf(automationId, runId)).steps.find((s) => s.key === key)?.status;
  const emailsTo = async (to: string) =>
    (
      await t.db.pool.query<{ id: string; subject: string }>(
        `SELECT id, subject FROM emails WHERE array_to_string(to_addrs, ',') ILIKE '%' || $1 || '%' ORDER BY created_at`,
        [to],
      )
    ).rows;
  /** A scheduled wake-up (delay or wait timeout) due now instead of later; notifies the workers. */
  const fastForward = async (runId: string, key: string) => {
    const { rowCount } = await t.db.pool.query(
      `UPDATE jobs SET run_at = now() WHERE kind = 'automations.wake' AND key = $1`,
      [`${runId}:${key}:wake`],
    );
    assert.equal(rowCount, 1, 'one wake-up job was scheduled for the step');
    await t.db.pool.query(`SELECT pg_notify('mailroom_jobs', 'automations.wake')`);
  };
  const template = async (
    name: string,
    subject: string,
    html: string,
    variables: { key: string; type: 'string' }[] = [],
  ) => {
    const c = await t.resend.templates.create({
      name,
      from: 'Acme <hello@example.com>',
      subject,
      html,
      variables,
    } as never);
    assert.equal(c.error, null, JSON.stringify(c.error));
    assert.equal((await t.resend.templates.publish(c.data!.id)).error, null);
    return c.data!.id;
  };

  before(async () => {
    t = await startCaptureApp();
    welcome = await template(
      'Welcome',
      'Welcome to the {{{PLAN}}} plan',
      '<p>Hi {{{NAME}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>',
      [
        { key: 'PLAN', type: 'string' },
        { key: 'NAME', type: 'string' },
      ],
    );
    tip = await template('Pro tip', 'A tip for pro users', '<p>Tip</p>');
    nudge = await template('Upgrade', 'Time to upgrade?', '<p>Upgrade</p>');
  });
  after(async () => {
    await t.close();
  });

  const series = (event: string) => ({
    steps: [
      { key: 'start', type: 'trigger' as const, config: { eventName: event } },
      {
        key: 'welcome',
        type: 'send_email' as const,
        config: { template: { id: welcome, variables: { PLAN: { var: 'event.plan' }, NAME: 'friend' } } },
      },
      { key: 'wait', type: 'delay' as const, config: { duration: '1 hour' } },
      {
        key: 'is_pro',
        type: 'condition' as const,
        config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' } as never,
      },
      { key: 'tip', type: 'send_email' as const, config: { template: { id: tip } } },
      { key: 'nudge', type: 'send_email' as const, config: { template: { id: nudge } } },
    ],
    connections: [
      { from: 'start', to: 'welcome' },
      { from: 'welcome', to: 'wait' },
      { from: 'wait', to: 'is_pro' },
      { from: 'is_pro', to: 'tip', type: 'condition_met' as const },
      { from: 'is_pro', to: 'nudge', type: 'condition_not_met' as const },
    ],
  });

  test("create, get, list, update, duplicate and delete answer Resend's shapes", async () => {
    const c = await t.resend.automations.create({ name: 'Series', ...series('crud.event') });
    assert.equal(c.error, null, JSON.stringify(c.error));
    assert.equal(c.data!.object, 'automation');
    const got = await t.resend.automations.get(c.data!.id);
    assert.deepEqual(
      [got.data!.object, got.data!.name, got.data!.status, got.data!.updated_at],
      ['automation', 'Series', 'disabled', null],
    );
    assert.deepEqual(got.data!.steps[0], { key: 'start', type: 'trigger', config: { event_name: 'crud.event' } });
    assert.deepEqual(got.data!.connections[3], { from: 'is_pro', to: 'tip', type: 'condition_met' });
    assert.equal(got.data!.connections[0].type, 'default');
    const up = await t.resend.automations.update(c.data!.id, { name: 'Renamed', status: 'enabled' });
    assert.deepEqual(up.data, { object: 'automation', id: c.data!.id });
    const dup = await t.resend.automations.duplicate(c.data!.id);
    assert.equal(dup.error, null);
    const copy = await t.resend.automations.get(dup.data!.id);
    assert.deepEqual([copy.data!.name, copy.data!.status, copy.data!.steps.length], ['Renamed (copy)', 'disabled', 6]);
    const enabled = await t.resend.automations.list({ status: 'enabled' });
    assert.deepEqual(
      enabled.data!.data.map((a) => a.name),
      ['Renamed'],
    );
    const page = await t.resend.automations.list({ limit: 1 });
    assert.deepEqual([page.data!.data.length, page.data!.has_more], [1, true]);
    const del = await t.resend.automations.remove(dup.data!.id);
    assert.deepEqual(del.data, { object: 'automation', id: dup.data!.id, deleted: true });
    assert.equal((await t.resend.automations.get(dup.data!.id)).error?.statusCode, 404);
    await t.resend.automations.remove(c.data!.id);
  });

  test('a graph is checked when saved, and each 422 names the step or connection at fault', async () => {
    const base = series('x.y');
    const bad = async (steps: unknown[], connections: unknown[]) => {
      const r = await t.resend.automations.create({
        name: 'Bad',
        steps: steps as never,
        connections: connections as never,
      });
      assert.equal(r.error?.statusCode, 422, JSON.stringify(r));
      return r.error!.message;
    };
    assert.match(
      await bad([...base.steps, { key: 'again', type: 'trigger', config: { eventName: 'z' } }], base.connections),
      /exactly one trigger/,
    );
    assert.match(
      await bad(base.steps, [...base.connections, { from: 'tip', to: 'nowhere' }]),
      /connections\[5\]\.to.*"nowhere".*dangling/,
    );
    // A condition's branch left unconnected ends the run there (issue 30): only the step it
    // orphans is refused, and without that step the graph saves.
    assert.match(
      await bad(
        base.steps,
        base.connections.filter((c) => c.to !== 'nudge'),
      ),
      /step "nudge".*not reachable from the trigger/,
    );
    const oneBranch = await t.resend.automations.create({
      name: 'One branch',
      steps: base.steps.filter((s) => s.key !== 'nudge') as never,
      connections: base.connections.filter((c) => c.to !== 'nudge') as never,
    });
    assert.equal(oneBranch.error, null, JSON.stringify(oneBranch.error));
    assert.match(
      await bad([...base.steps, { key: 'orphan', type: 'contact_delete', config: {} }], base.connections),
      /step "orphan".*not reachable/,
    );
    const longDelay = base.steps.map((s) => (s.key === 'wait' ? { ...s, config: { duration: '31 days' } } : s));
    assert.match(await bad(longDelay, base.connections), /steps\[2\] \(key "wait"\)\.config\.duration.*30 days/);
    const badRule = base.steps.map((s) =>
      s.key === 'is_pro' ? { ...s, config: { type: 'rule', field: 'plan', operator: 'eq', value: 'pro' } } : s,
    );
    assert.match(await bad(badRule, base.connections), /steps\[3\] \(key "is_pro"\)\.config\.field/);
    assert.match(
      await bad(base.steps, [
        ...base.connections.slice(0, 2),
        { from: 'wait', to: 'is_pro', type: 'timeout' },
        ...base.connections.slice(3),
      ]),
      /connections\[2\]\.type.*delay step "wait"/,
    );
    const draft = (
      await t.resend.templates.create({
        name: 'Draft',
        from: 'Acme <hello@example.com>',
        subject: 'D',
        html: '<p>D</p>',
      })
    ).data!.id;
    const unpublished = base.steps.map((s) => (s.key === 'tip' ? { ...s, config: { template: { id: draft } } } : s));
    assert.match(
      await bad(unpublished, base.connections),
      /steps\[4\] \(key "tip"\)\.config\.template\.id.*not been published/,
    );
    const noSegment = [
      ...base.steps,
      { key: 'seg', type: 'add_to_segment', config: { segmentId: '00000000-0000-4000-8000-000000000000' } },
    ];
    assert.match(
      await bad(noSegment, [...base.connections, { from: 'tip', to: 'seg' }]),
      /steps\[6\] \(key "seg"\)\.config\.segment_id/,
    );
    assert.equal((await t.resend.automations.list()).data!.data.filter((a) => a.name === 'Bad').length, 0);
  });

  test('trigger → send_email → delay → condition → send_email runs end to end, each branch, with variables from the event', async () => {
    const c = await t.resend.automations.create({
      name: 'Welcome series',
      status: 'enabled',
      ...series('user.signed_up'),
    });
    assert.equal(c.error, null, JSON.stringify(c.error));
    const id = c.data!.id;
    // By email: the contact does not exist yet and is created for the run.
    assert.deepEqual(
      (await sendEvent({ event: 'user.signed_up', email: 'pro@dest.test', payload: { plan: 'pro' } })).data,
      { object: 'event', event: 'user.signed_up' },
    );
    await sendEvent({ event: 'user.signed_up', email: 'free@dest.test', payload: { plan: 'free' } });
    const created = await t.api('GET', '/contacts/pro@dest.test');
    assert.equal(created.status, 200, 'the run created the contact');
    const ev = await t.db.pool.query(`SELECT type FROM email_events WHERE email_id = $1`, [created.body.id]);
    assert.deepEqual(
      ev.rows.map((r) => r.type),
      ['contact.created'],
      'with its contact.created event (and webhook)',
    );
    const runs = await runsOf(id);
    assert.equal(runs.length, 2);
    for (const r of runs) {
      await until('the delay to wait', async () => (await stepStatus(id, r.id, 'wait')) === 'waiting');
      const mid = await runOf(id, r.id);
      assert.deepEqual(
        mid.steps.map((s) => [s.key, s.status]),
        [
          ['start', 'completed'],
          ['welcome', 'completed'],
          ['wait', 'waiting'],
        ],
      );
      assert.equal(mid.status, 'running');
      assert.deepEqual(Object.keys(mid), [
        'object',
        'id',
        'status',
        'started_at',
        'completed_at',
        'created_at',
        'email',
        'contact_id',
        'steps',
      ]);
      // Resend's fields, then Mailroom's `email` (the contact's address, issue 30).
      assert.deepEqual(Object.keys(r), ['id', 'status', 'started_at', 'completed_at', 'created_at', 'email']);
      // Exactly once: the send step's job run again while the run is live (as after a crash between
      // the step's commit and the job's delete) finds the step completed and sends nothing.
      await t.db.pool.query(`INSERT INTO jobs (kind, payload) VALUES ('automations.step', $1)`, [
        JSON.stringify({ run_id: r.id, key: 'welcome' }),
      ]);
      await t.db.pool.query(`SELECT pg_notify('mailroom_jobs', 'automations.step')`);
      await until(
        'the repeated job to be consumed',
        async () =>
          (await t.db.pool.query(`SELECT 1 FROM jobs WHERE kind = 'automations.step' AND payload->>'key' = 'welcome'`))
            .rowCount === 0,
      );
      assert.equal((await runOf(id, r.id)).steps.length, 3);
      await fastForward(r.id, 'wait');
    }
    for (const r of runs)
      await until('the run to complete', async () => (await runOf(id, r.id)).status === 'completed');
    const pro = await emailsTo('pro@dest.test');
    assert.deepEqual(
      pro.map((e) => e.subject),
      ['Welcome to the pro plan', 'A tip for pro users'],
    );
    assert.deepEqual(
      (await emailsTo('free@dest.test')).map((e) => e.subject),
      ['Welcome to the free plan', 'Time to upgrade?'],
    );
    const done = await runOf(
      id,
      (
        await t.db.pool.query(`SELECT id FROM automation_runs WHERE automation_id = $1 AND email = 'pro@dest.test'`, [
          id,
        ])
      ).rows[0].id,
    );
    assert.deepEqual(
      done.steps.map((s) => [s.key, s.status]),
      [
        ['start', 'completed'],
        ['welcome', 'completed'],
        ['wait', 'completed'],
        ['is_pro', 'completed'],
        ['tip', 'completed'],
      ],
    );
    assert.deepEqual(done.steps[3].output, { result: true });
    assert.ok(done.completed_at);
    const welcomeId = (done.steps[1].output as { email_id: string }).email_id;
    const sent = await t.resend.emails.get(welcomeId);
    assert.equal(sent.error, null);
    assert.match(sent.data!.html ?? '', /Hi friend/);
    assert.doesNotMatch(
      sent.data!.html ?? '',
      /RESEND_UNSUBSCRIBE_URL/,
      'list mail: the unsubscribe link is filled in',
    );

    // Re-entry: the previous run ended, so the contact may start again; a run in progress blocks a new one.
    await sendEvent({ event: 'user.signed_up', email: 'pro@dest.test', payload: { plan: 'pro' } });
    await sendEvent({ event: 'user.signed_up', email: 'pro@dest.test', payload: { plan: 'pro' } });
    const again = await runsOf(id);
    assert.equal(again.length, 3, 'one new run: the second event came while it was running');
    assert.deepEqual(again.map((r) => r.status).sort(), ['completed', 'completed', 'running']);
    const running = await t.resend.automations.runs.list({ automationId: id, status: 'running' });
    assert.equal(running.data!.data.length, 1);
    await t.resend.automations.stop(id);
  });

  test('an unsubscribed or suppressed contact gets no automation email: the step is skipped with the reason', async () => {
    const c = await t.resend.automations.create({
      name: 'One mail',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'order.placed' } },
        { key: 'mail', type: 'send_email', config: { template: { id: tip } } },
      ],
      connections: [{ from: 't', to: 'mail' }],
    });
    const id = c.data!.id;
    const out = await t.resend.contacts.create({ email: 'out@dest.test', unsubscribed: true });
    await sendEvent({ event: 'order.placed', contactId: out.data!.id });
    await t.db.pool.query(
      `INSERT INTO suppressions (id, team_id, email, origin) SELECT gen_random_uuid(), team_id, 'bounced@dest.test', 'bounce' FROM automations WHERE id = $1`,
      [id],
    );
    await sendEvent({ event: 'order.placed', email: 'bounced@dest.test' });
    const runs = await runsOf(id);
    assert.equal(runs.length, 2);
    for (const r of runs)
      await until('the run to complete', async () => (await runOf(id, r.id)).status === 'completed');
    const reasons = [];
    for (const r of runs) reasons.push((await runOf(id, r.id)).steps.find((s) => s.key === 'mail'));
    assert.deepEqual(reasons.map((s) => [s!.status, (s!.output as { reason: string }).reason]).sort(), [
      ['skipped', 'suppressed'],
      ['skipped', 'unsubscribed'],
    ]);
    assert.equal((await emailsTo('out@dest.test')).length, 0);
    assert.equal((await emailsTo('bounced@dest.test')).length, 0);
  });

  test('wait_for_event resumes on the event, and takes the timeout branch when it does not come', async () => {
    const c = await t.resend.automations.create({
      name: 'Activation',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'trial.started' } },
        {
          key: 'activated',
          type: 'wait_for_event',
          config: {
            eventName: 'user.activated',
            timeout: '3 days',
            filterRule: { type: 'rule', field: 'event.ok', operator: 'eq', value: true } as never,
          },
        },
        { key: 'thanks', type: 'send_email', config: { template: { id: tip } } },
        { key: 'remind', type: 'send_email', config: { template: { id: nudge } } },
      ],
      connections: [
        { from: 't', to: 'activated' },
        { from: 'activated', to: 'thanks', type: 'event_received' },
        { from: 'activated', to: 'remind', type: 'timeout' },
      ],
    });
    assert.equal(c.error, null, JSON.stringify(c.error));
    const id = c.data!.id;
    await sendEvent({ event: 'trial.started', email: 'eager@dest.test' });
    await sendEvent({ event: 'trial.started', email: 'idle@dest.test' });
    const runs = await runsOf(id);
    const runFor = async (email: string) =>
      (await t.db.pool.query(`SELECT id FROM automation_runs WHERE automation_id = $1 AND email = $2`, [id, email]))
        .rows[0].id as string;
    const eager = await runFor('eager@dest.test');
    const idle = await runFor('idle@dest.test');
    assert.equal(runs.length, 2);
    for (const r of [eager, idle])
      await until('the wait', async () => (await stepStatus(id, r, 'activated')) === 'waiting');
    await sendEvent({ event: 'user.activated', email: 'eager@dest.test', payload: { ok: false } });
    assert.equal(
      await stepStatus(id, eager, 'activated'),
      'waiting',
      'an event failing the filter does not resume the wait',
    );
    await sendEvent({ event: 'user.activated', email: 'eager@dest.test', payload: { ok: true } });
    await until('the eager run to complete', async () => (await runOf(id, eager)).status === 'completed');
    assert.deepEqual(
      (await emailsTo('eager@dest.test')).map((e) => e.subject),
      ['A tip for pro users'],
    );
    const e = await runOf(id, eager);
    assert.deepEqual(
      e.steps.map((s) => [s.key, s.status]),
      [
        ['t', 'completed'],
        ['activated', 'completed'],
        ['thanks', 'completed'],
      ],
    );
    assert.equal((e.steps[1].output as { event_received: string }).event_received, 'user.activated');
    // The eager run's timeout job, when due, finds the step completed and does nothing.
    await fastForward(eager, 'activated');
    await fastForward(idle, 'activated');
    await until('the idle run to complete', async () => (await runOf(id, idle)).status === 'completed');
    const i = await runOf(id, idle);
    assert.deepEqual(
      i.steps.map((s) => [s.key, s.status]),
      [
        ['t', 'completed'],
        ['activated', 'completed'],
        ['remind', 'completed'],
      ],
    );
    assert.deepEqual(i.steps[1].output, { timed_out: true });
    assert.deepEqual(
      (await emailsTo('idle@dest.test')).map((x) => x.subject),
      ['Time to upgrade?'],
    );
    await until(
      'the jobs to drain',
      async () =>
        (
          await t.db.pool.query(
            `SELECT 1 FROM jobs WHERE kind IN ('automations.step', 'automations.wake') AND run_at <= now()`,
          )
        ).rowCount === 0,
    );
    assert.equal((await emailsTo('eager@dest.test')).length, 1, 'the late timeout sent no reminder');
  });

  test("contact_update, add_to_segment and contact_delete act on the run's contact through the contacts module", async () => {
    const segment = (await t.resend.segments.create({ name: 'Activated' })).data!.id;
    const c = await t.resend.automations.create({
      name: 'Profile',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'profile.filled' } },
        { key: 'upd', type: 'contact_update', config: { firstName: { var: 'event.name' }, lastName: 'Lovelace' } },
        { key: 'seg', type: 'add_to_segment', config: { segmentId: segment } },
      ],
      connections: [
        { from: 't', to: 'upd' },
        { from: 'upd', to: 'seg' },
      ],
    });
    assert.equal(c.error, null, JSON.stringify(c.error));
    const gone = await t.resend.automations.create({
      name: 'Forget me',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'account.closed' } },
        { key: 'del', type: 'contact_delete', config: {} },
      ],
      connections: [{ from: 't', to: 'del' }],
    });
    await sendEvent({ event: 'profile.filled', email: 'ada@dest.test', payload: { name: 'Ada' } });
    const [r] = await runsOf(c.data!.id);
    await until('the run to complete', async () => (await runOf(c.data!.id, r.id)).status === 'completed');
    const ada = await t.resend.contacts.get({ email: 'ada@dest.test' });
    assert.deepEqual([ada.data!.first_name, ada.data!.last_name], ['Ada', 'Lovelace']);
    const segs = await t.api('GET', '/contacts/ada@dest.test/segments');
    assert.deepEqual(
      segs.body.data.map((x: { id: string }) => x.id),
      [segment],
    );
    await sendEvent({ event: 'account.closed', email: 'ada@dest.test' });
    const [g] = await runsOf(gone.data!.id);
    await until('the delete run to complete', async () => (await runOf(gone.data!.id, g.id)).status === 'completed');
    assert.equal((await t.api('GET', '/contacts/ada@dest.test')).status, 404);
    assert.deepEqual(
      (await runOf(gone.data!.id, g.id)).steps.map((x) => [x.key, x.status]),
      [
        ['t', 'completed'],
        ['del', 'completed'],
      ],
    );
  });

  test('stop disables the automation and cancels its running runs; a disabled automation starts none', async () => {
    const c = await t.resend.automations.create({ name: 'Stoppable', status: 'enabled', ...series('stop.me') });
    const id = c.data!.id;
    await sendEvent({ event: 'stop.me', email: 'stopped@dest.test', payload: { plan: 'pro' } });
    const [r] = await runsOf(id);
    await until('the delay to wait', async () => (await stepStatus(id, r.id, 'wait')) === 'waiting');
    const stopped = await t.resend.automations.stop(id);
    assert.deepEqual(stopped.data, { object: 'automation', id, status: 'disabled' });
    const run = await runOf(id, r.id);
    assert.equal(run.status, 'cancelled');
    assert.deepEqual(run.steps.find((s) => s.key === 'wait')!.status, 'skipped');
    await fastForward(r.id, 'wait'); // the wake-up finds the run cancelled
    await sendEvent({ event: 'stop.me', email: 'later@dest.test', payload: { plan: 'pro' } });
    await until(
      'the jobs to drain',
      async () =>
        (
          await t.db.pool.query(
            `SELECT 1 FROM jobs WHERE kind IN ('automations.step', 'automations.wake') AND run_at <= now()`,
          )
        ).rowCount === 0,
    );
    assert.equal((await runsOf(id)).length, 1, 'no run started while disabled');
    assert.deepEqual(
      (await emailsTo('stopped@dest.test')).map((e) => e.subject),
      ['Welcome to the pro plan'],
    );
    assert.equal((await runOf(id, r.id)).steps.filter((s) => s.key === 'is_pro').length, 0);
  });
});

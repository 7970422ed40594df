// The automations' batch paths through the real interfaces (HTTP, the worker processes' jobs):
// 1. Events queued by an API-only process (no worker yet), more than one batch of them, then taken by
//    a worker in batches of AUTOMATION_EVENT_BATCH (set-based, in per-address waves): runs started
//    with the re-entry rules, contacts created with their contact.created events (the same webhook
//    data as POST /contacts), a run that ends at once followed by another for the same address in
//    the same batch, an event waited for right after the event that starts the run, the same across
//    the batch boundary (the first queued event starts a run, the last resumes it: it holds only if
//    the batches are taken in order), and a parked wait resumed by an event queued after a pause.
// 2. Hundreds of wake-ups due at once (delays elapsed, wait timeouts with a timeout connection,
//    waits already resumed by their event, and wake-ups queued the earlier way as automations.step):
//    every run completes, every step once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { AUTOMATION_EVENT_BATCH } from '../../src/automations/event.job.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

const createAutomation = async (t: TestApp, body: Record<string, unknown>) => {
  const r = await t.api('POST', '/automations', { body: { status: 'enabled', ...body } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.id as string;
};
const send = async (t: TestApp, event: string, email: string, payload?: Record<string, unknown>) => {
  const r = await t.api('POST', '/events/send', { body: { event, email, ...(payload ? { payload } : {}) } });
  assert.equal(r.status, 202, JSON.stringify(r.body));
};
const delayTo = (event: string, reentry?: string) => ({
  name: `${event} ${reentry ?? 'after_end'}`,
  ...(reentry ? { reentry } : {}),
  steps: [
    { key: 't', type: 'trigger', config: { event_name: event } },
    { key: 'd', type: 'delay', config: { duration: '1 hour' } },
  ],
  connections: [{ from: 't', to: 'd' }],
});

/**
 * A database with an API-only process that queues events (no worker yet); the test starts the
 * worker when the queue should be taken (`startWorker`), and may stop it to queue more.
 */
function apiFirst() {
  const w = {} as {
    db: TestDatabase;
    api: TestApp;
    worker?: TestApp;
    startWorker(): Promise<void>;
    stopWorker(): Promise<void>;
  };
  w.startWorker = async () => {
    w.worker = await startTestApp({ deliveryMode: 'capture', roles: ['worker'] }, { db: w.db });
  };
  w.stopWorker = async () => {
    await w.worker?.close();
    w.worker = undefined;
  };
  before(async () => {
    w.db = await freshDatabase();
    w.api = await startTestApp({ deliveryMode: 'capture', roles: ['api'] }, { db: w.db });
  });
  after(async () => {
    await closeAll(
      () => w.stopWorker(),
      () => w.api?.close(),
      () => w.db?.drop(),
    );
  });
  return w;
}

describe('automations: the event queue taken in batches', () => {
  const w = apiFirst();
  const q = async <T = any>(sql: string, params: unknown[] = []) => (await w.db.pool.query(sql, params)).rows as T[];
  const runs = (automationId: string) =>
    q<{ id: string; email: string; status: string; contact_id: string }>(
      'SELECT id, email, status, contact_id FROM automation_runs WHERE automation_id = $1 ORDER BY created_at, id',
      [automationId],
    );
  const queueEmpty = () =>
    until(
      'the event queue to be taken',
      async () => (await q('SELECT 1 FROM automation_event_queue')).length === 0,
      60_000,
    );

  test('more than a batch of queued events: runs, re-entry refusals, contacts and their webhooks, same-batch and cross-batch order, waits', {
    timeout: 180_000,
  }, async () => {
    const signup = await createAutomation(w.api, delayTo('signup'));
    const always = await createAutomation(w.api, delayTo('cart', 'always'));
    const never = await createAutomation(w.api, delayTo('cart', 'never'));
    const instant = await createAutomation(w.api, {
      name: 'Trigger only',
      steps: [{ key: 't', type: 'trigger', config: { event_name: 'ping' } }],
      connections: [],
    });
    const waiter = await createAutomation(w.api, {
      name: 'Activation',
      steps: [
        { key: 't', type: 'trigger', config: { event_name: 'trial' } },
        {
          key: 'w',
          type: 'wait_for_event',
          config: {
            event_name: 'activated',
            timeout: '1 day',
            filter_rule: { type: 'rule', field: 'event.ok', operator: 'eq', value: true },
          },
        },
        { key: 'hi', type: 'contact_update', config: { first_name: 'Activated' } },
        { key: 'late', type: 'contact_update', config: { last_name: 'Late' } },
      ],
      connections: [
        { from: 't', to: 'w' },
        { from: 'w', to: 'hi', type: 'event_received' },
        { from: 'w', to: 'late', type: 'timeout' },
      ],
    });
    const existing = await w.api.api('POST', '/contacts', { body: { email: 'existing@dest.test' } });
    assert.equal(existing.status, 201);

    // All queued before any worker runs: the worker takes them in batches, in order. N signups make
    // the queue longer than a batch, with a run started by the first event and resumed by the last.
    const N = AUTOMATION_EVENT_BATCH;
    await send(w.api, 'trial', 'cross@dest.test');
    for (let i = 0; i < N; i += 40)
      await Promise.all(
        Array.from({ length: Math.min(40, N - i) }, (_, j) => send(w.api, 'signup', `n${i + j}@dest.test`)),
      );
    await send(w.api, 'signup', 'existing@dest.test');
    for (let i = 0; i < 3; i++) await send(w.api, 'signup', 'again@dest.test');
    for (let i = 0; i < 3; i++) await send(w.api, 'cart', 'shop@dest.test');
    for (let i = 0; i < 2; i++) await send(w.api, 'ping', 'pinger@dest.test');
    await send(w.api, 'trial', 'early@dest.test');
    await send(w.api, 'activated', 'early@dest.test', { ok: true, name: 'Early' }); // its run's wait is still pending then
    await send(w.api, 'trial', 'filt@dest.test');
    await send(w.api, 'activated', 'filt@dest.test', { ok: false, name: 'Nope' }); // fails the filter: not remembered
    await send(w.api, 'activated', 'nobody@dest.test', { ok: true }); // no run waits for it
    await send(w.api, 'activated', 'cross@dest.test', { ok: true, name: 'Cross' }); // a batch after the event that started its run
    const queued = N + 16;
    assert.ok(queued > AUTOMATION_EVENT_BATCH, 'more than one batch');
    assert.equal((await q('SELECT 1 FROM automation_event_queue')).length, queued);
    assert.equal((await q('SELECT 1 FROM automation_runs')).length, 0);

    await w.startWorker();
    await queueEmpty();

    const s = await runs(signup);
    assert.equal(s.length, N + 2, 'N new addresses, the existing contact, and one run for three events of one address');
    assert.equal(new Set(s.map((r) => r.email)).size, N + 2);
    assert.equal(
      s.find((r) => r.email === 'existing@dest.test')!.contact_id,
      existing.body.id,
      'the existing contact, not a new one',
    );
    assert.deepEqual(
      (await runs(always)).map((r) => r.status),
      ['running', 'running', 'running'],
      'always: a run per event',
    );
    assert.equal((await runs(never)).length, 1, 'never: one run, however many events');
    assert.deepEqual(
      (await runs(instant)).map((r) => r.status),
      ['completed', 'completed'],
      'a run that ended at once lets the next event of the batch start another',
    );
    assert.deepEqual(
      await q(`SELECT automation_id, trigger_event_id FROM automation_runs GROUP BY 1, 2 HAVING count(*) > 1`),
      [],
      'no event started two runs of one automation',
    );

    // Every address that started a run has its contact, created once, with one contact.created each.
    const created = await q<{ email: string; n: number }>(
      `SELECT c.email, count(e.*)::int AS n FROM contacts c LEFT JOIN email_events e ON e.email_id = c.id AND e.type = 'contact.created' GROUP BY c.email`,
    );
    assert.equal(created.length, N + 7, 'n0..n(N-1), existing, again, shop, pinger, early, filt, cross; not nobody');
    assert.deepEqual(
      created.filter((c) => c.n !== 1),
      [],
      'one contact.created each',
    );
    assert.equal(
      new Set((await runs(signup)).map((r) => r.contact_id)).size,
      N + 2,
      "each run on its address's contact",
    );
    // The webhook data is what POST /contacts records for a new contact.
    const data = async (email: string) =>
      (
        await q(
          `SELECT e.data FROM email_events e JOIN contacts c ON c.id = e.email_id WHERE c.email = $1 AND e.type = 'contact.created'`,
          [email],
        )
      )[0].data;
    const made = await data('n7@dest.test');
    const byApi = await data('existing@dest.test');
    assert.deepEqual(Object.keys(made).sort(), Object.keys(byApi).sort());
    const contact = (await q(`SELECT id, created_at FROM contacts WHERE email = 'n7@dest.test'`))[0];
    assert.deepEqual(made, {
      ...byApi,
      id: contact.id,
      email: 'n7@dest.test',
      created_at: contact.created_at.toISOString(),
      updated_at: contact.created_at.toISOString(),
    });

    // Each new run's trigger completed and its delay parked at once with its wake-up (no step job).
    await until(
      'every delay to wait',
      async () =>
        (await q(`SELECT 1 FROM automation_run_steps WHERE key = 'd' AND status = 'waiting'`)).length === N + 2 + 3 + 1,
      60_000,
    );
    assert.deepEqual(
      await q(
        `SELECT s.key, s.status, count(*)::int AS n FROM automation_run_steps s JOIN automation_runs r ON r.id = s.run_id WHERE r.automation_id = $1 GROUP BY 1, 2 ORDER BY 1`,
        [signup],
      ),
      [
        { key: 'd', status: 'waiting', n: N + 2 },
        { key: 't', status: 'completed', n: N + 2 },
      ],
    );
    assert.equal(
      (await q(`SELECT 1 FROM jobs WHERE kind = 'automations.wake' AND key LIKE '%:d:wake'`)).length,
      N + 6,
      'one wake-up per delay',
    );
    assert.equal(
      (await q(`SELECT 1 FROM jobs WHERE kind = 'automations.step' AND key LIKE '%:d'`)).length,
      0,
      'and no step job for it',
    );

    // The event that came right after its run's start completed the wait; the filtered one did not.
    const early = (await runs(waiter)).find((r) => r.email === 'early@dest.test')!;
    await until(
      'the early run to complete',
      async () => (await q('SELECT status FROM automation_runs WHERE id = $1', [early.id]))[0].status === 'completed',
      30_000,
    );
    const earlySteps = await q(
      `SELECT key, status, output FROM automation_run_steps WHERE run_id = $1 ORDER BY created_at`,
      [early.id],
    );
    assert.deepEqual(
      earlySteps.map((x) => [x.key, x.status]),
      [
        ['t', 'completed'],
        ['w', 'completed'],
        ['hi', 'completed'],
      ],
    );
    assert.deepEqual(earlySteps[1].output.payload, { ok: true, name: 'Early' });
    assert.equal(
      (await q(`SELECT first_name FROM contacts WHERE email = 'early@dest.test'`))[0].first_name,
      'Activated',
    );
    // The last event, a batch later, completed the wait of the run the first event started.
    const cross = (await runs(waiter)).find((r) => r.email === 'cross@dest.test')!;
    await until(
      'the cross-batch run to complete',
      async () => (await q('SELECT status FROM automation_runs WHERE id = $1', [cross.id]))[0].status === 'completed',
      30_000,
    );
    assert.deepEqual(
      (await q(`SELECT output FROM automation_run_steps WHERE run_id = $1 AND key = 'w'`, [cross.id]))[0].output
        .payload,
      { ok: true, name: 'Cross' },
    );
    assert.equal(
      (await q(`SELECT first_name FROM contacts WHERE email = 'cross@dest.test'`))[0].first_name,
      'Activated',
    );
    const filt = (await runs(waiter)).find((r) => r.email === 'filt@dest.test')!;
    await until(
      'the filtered run to wait',
      async () =>
        (await q(`SELECT status FROM automation_run_steps WHERE run_id = $1 AND key = 'w'`, [filt.id]))[0].status ===
        'waiting',
      30_000,
    );

    // A later batch, mixed with new runs, resumes the parked wait (which passes the filter now).
    await w.stopWorker();
    await send(w.api, 'activated', 'filt@dest.test', { ok: true, name: 'Filt' });
    for (let i = 0; i < 20; i++) await send(w.api, 'signup', `m${i}@dest.test`);
    await w.startWorker();
    await queueEmpty();
    await until(
      'the filtered run to complete',
      async () => (await q('SELECT status FROM automation_runs WHERE id = $1', [filt.id]))[0].status === 'completed',
      30_000,
    );
    assert.equal(
      (await q(`SELECT first_name FROM contacts WHERE email = 'filt@dest.test'`))[0].first_name,
      'Activated',
    );
    assert.equal((await runs(signup)).length, N + 22);
    assert.equal(
      (await q(`SELECT 1 FROM jobs WHERE kind = 'automations.wake' AND key = $1`, [`${filt.id}:w:wake`])).length,
      1,
      'its timeout stays queued, and finds the step completed when due',
    );
  });
});

describe('automations: many wake-ups due at once', () => {
  let db: TestDatabase;
  let app: TestApp;
  before(async () => {
    db = await freshDatabase();
    app = await startTestApp({ deliveryMode: 'capture' }, { db });
  });
  after(async () => {
    await closeAll(
      () => app?.close(),
      () => db?.drop(),
    );
  });
  const q = async <T = any>(sql: string, params: unknown[] = []) => (await db.pool.query(sql, params)).rows as T[];

  test('600 wake-ups (delays, wait timeouts, waits already resumed, and the earlier automations.step kind) each complete their run once', {
    timeout: 120_000,
  }, async () => {
    const delay = await createAutomation(app, delayTo('tick'));
    const wait = await createAutomation(app, {
      name: 'Wait or time out',
      steps: [
        { key: 't', type: 'trigger', config: { event_name: 'tick' } },
        { key: 'w', type: 'wait_for_event', config: { event_name: 'tock', timeout: '1 hour' } },
        { key: 'got', type: 'contact_update', config: { first_name: 'Tocked' } },
        { key: 'late', type: 'contact_update', config: { last_name: 'TimedOut' } },
      ],
      connections: [
        { from: 't', to: 'w' },
        { from: 'w', to: 'got', type: 'event_received' },
        { from: 'w', to: 'late', type: 'timeout' },
      ],
    });
    const N = 300;
    for (let i = 0; i < N; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => send(app, 'tick', `w${i + j}@dest.test`)));
    await until(
      'every delay and wait to be parked',
      async () =>
        (await q(`SELECT 1 FROM automation_run_steps WHERE key IN ('d', 'w') AND status = 'waiting'`)).length === 2 * N,
      60_000,
    );
    // 100 waits resumed by their event first: their timeouts, when due, must change nothing.
    for (let i = 0; i < 100; i += 50)
      await Promise.all(Array.from({ length: 50 }, (_, j) => send(app, 'tock', `w${i + j}@dest.test`)));
    await until(
      'the resumed waits to complete',
      async () =>
        (await q(`SELECT 1 FROM automation_run_steps WHERE key = 'got' AND status = 'completed'`)).length === 100,
      30_000,
    );
    // 50 delays also get a wake-up queued as an earlier version did (automations.step, wake: true): it runs twice, once each way.
    const legacy = (
      await q<{ id: string }>(`SELECT id FROM automation_runs WHERE automation_id = $1 ORDER BY id LIMIT 50`, [delay])
    ).map((r) => r.id);
    await db.pool.query(
      `INSERT INTO jobs (kind, key, payload, run_at) SELECT 'automations.step', r || ':d:wake', jsonb_build_object('run_id', r, 'key', 'd', 'wake', true), now() + interval '1 hour' FROM unnest($1::uuid[]) r`,
      [legacy],
    );
    assert.equal((await q(`SELECT 1 FROM jobs WHERE kind = 'automations.wake'`)).length, 2 * N);
    // Everything due now, at once.
    await db.pool.query(`UPDATE jobs SET run_at = now() WHERE kind IN ('automations.wake', 'automations.step')`);
    await db.pool.query(
      `SELECT pg_notify('mailroom_jobs', 'automations.wake'), pg_notify('mailroom_jobs', 'automations.step')`,
    );
    await until(
      'every run to complete',
      async () => (await q(`SELECT 1 FROM automation_runs WHERE status <> 'completed'`)).length === 0,
      60_000,
    );
    await until(
      'the automation jobs to drain',
      async () => (await q(`SELECT 1 FROM jobs WHERE kind LIKE 'automations.%'`)).length === 0,
      30_000,
    );

    const steps = await q<{ automation: string; key: string; status: string; output: string; n: number }>(
      `SELECT CASE r.automation_id WHEN $1 THEN 'delay' ELSE 'wait' END AS automation, s.key, s.status, CASE WHEN s.output ? 'event_received' THEN 'received' ELSE s.output::text END AS output, count(*)::int AS n
       FROM automation_run_steps s JOIN automation_runs r ON r.id = s.run_id WHERE s.key IN ('d', 'w') GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
      [delay],
    );
    assert.deepEqual(steps, [
      { automation: 'delay', key: 'd', status: 'completed', output: '{"delayed": "1 hour"}', n: N },
      { automation: 'wait', key: 'w', status: 'completed', output: 'received', n: 100 },
      { automation: 'wait', key: 'w', status: 'completed', output: '{"timed_out": true}', n: N - 100 },
    ]);
    assert.deepEqual(
      await q(
        `SELECT key, status, count(*)::int AS n FROM automation_run_steps WHERE key IN ('got', 'late') GROUP BY 1, 2 ORDER BY 1`,
      ),
      [
        { key: 'got', status: 'completed', n: 100 },
        { key: 'late', status: 'completed', n: N - 100 },
      ],
    );
    // Exactly once: each contact was updated once (one contact.updated each), by the branch its wait took.
    const updated = await q<{ email: string; n: number; first_name: string | null; last_name: string | null }>(
      `SELECT c.email, c.first_name, c.last_name, count(e.*)::int AS n FROM contacts c LEFT JOIN email_events e ON e.email_id = c.id AND e.type = 'contact.updated' GROUP BY 1, 2, 3`,
    );
    assert.equal(updated.length, N);
    assert.deepEqual(
      updated.filter((u) => u.n !== 1),
      [],
      'one contact.updated per contact',
    );
    const tocked = (i: number) => i < 100;
    assert.deepEqual(
      updated.filter((u) =>
        tocked(Number(u.email.slice(1).split('@')[0]))
          ? u.first_name !== 'Tocked' || u.last_name !== null
          : u.last_name !== 'TimedOut' || u.first_name !== null,
      ),
      [],
    );
    assert.equal(
      (await q(`SELECT 1 FROM automation_runs WHERE automation_id = $1 AND status = 'completed'`, [wait])).length,
      N,
    );
  });
});

describe('automations: one bad event in a batch', () => {
  const w = apiFirst();

  test('an event that cannot be handled fails the set-based batch; its events are then taken one at a time and only it is dropped', {
    timeout: 120_000,
  }, async () => {
    const good = await createAutomation(w.api, delayTo('good'));
    const bad = await createAutomation(w.api, delayTo('bad'));
    // A graph that can no longer be run (a delay of no duration: as if saved by a broken release).
    await w.db.pool.query(
      `UPDATE automations SET steps = jsonb_set(steps, '{1,config,duration}', '"0 minutes"') WHERE id = $1`,
      [bad],
    );
    for (let i = 0; i < 30; i++) await send(w.api, i === 15 ? 'bad' : 'good', `g${i}@dest.test`);
    await w.startWorker();
    await until(
      'the event queue to be taken',
      async () => (await w.db.pool.query('SELECT 1 FROM automation_event_queue')).rowCount === 0,
      60_000,
    );
    const runs = async (id: string) =>
      (await w.db.pool.query('SELECT email FROM automation_runs WHERE automation_id = $1', [id])).rows;
    assert.equal((await runs(good)).length, 29, 'every other event started its run');
    assert.deepEqual(await runs(bad), [], 'the bad event was dropped, rolled back alone');
    assert.equal(
      (await w.db.pool.query(`SELECT 1 FROM contacts WHERE email = 'g15@dest.test'`)).rowCount,
      0,
      'nothing of it was kept',
    );
    assert.equal((await w.db.pool.query(`SELECT 1 FROM jobs WHERE kind = 'automations.wake'`)).rowCount, 29);
  });
});

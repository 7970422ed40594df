// Issue 26: one live process under a burst of POST /events/send logged "the job's lease was taken
// over before it finished" several times within 80 ms. Each event re-arms the one automations.event
// job (automations_wake); re-arming a job that was running took its lease away (locked_by = NULL),
// so the same process claimed it again while the first run was still going, and the first run's
// delete found the job no longer its own. A lease is never taken from a live process: re-arming
// now marks the job, and its run, once finished, leaves it due again instead of deleting it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { createLogger, type Logger } from '../../src/lib/log.js';
import { until } from '../helpers/until.js';

interface Line {
  level: string;
  msg: string;
}

/** A logger that keeps warnings and errors (the app's logger is otherwise silent in tests). */
function capturingLogger(lines: Line[], base: Record<string, unknown> = {}): Logger {
  const silent = createLogger('silent');
  const keep = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    lines.push({ level, msg, ...base, ...fields });
  };
  return {
    ...silent,
    warn: keep('warn'),
    error: keep('error'),
    child: (fields) => capturingLogger(lines, { ...base, ...fields }),
  };
}

describe('a burst of events with one live process', () => {
  let t: TestApp;
  const lines: Line[] = [];
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' }, { log: capturingLogger(lines) });
  });
  after(async () => {
    await t?.close();
  });

  test('bursts of six POST /events/send: no lease taken over, one run per event, the job ends', async () => {
    const domain = (await t.resend.domains.create({ name: 'example.com' })).data!;
    await t.resend.domains.verify(domain.id);
    const tpl = (
      await t.resend.templates.create({
        name: 'Hello',
        from: 'Acme <hello@example.com>',
        subject: 'Hello',
        html: '<p>Hi</p>',
      })
    ).data!.id;
    await t.resend.templates.publish(tpl);
    const a = await t.resend.automations.create({
      name: 'Welcome',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'signup' } },
        { key: 'mail', type: 'send_email', config: { template: { id: tpl }, subject: 'Welcome' } },
      ],
      connections: [{ from: 't', to: 'mail' }],
    });
    assert.equal(a.error, null, JSON.stringify(a.error));

    const BURSTS = 8;
    for (let b = 0; b < BURSTS; b++) {
      const sent = await Promise.all(
        Array.from({ length: 6 }, (_, i) => t.resend.events.send({ event: 'signup', email: `u${b}-${i}@dest.test` })),
      );
      for (const s of sent) assert.equal(s.error, null, JSON.stringify(s.error));
      await new Promise((r) => setTimeout(r, 100));
    }
    await until(
      'every event taken and its run started',
      async () =>
        (await t.db.pool.query('SELECT 1 FROM automation_event_queue')).rowCount === 0 &&
        (await t.db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM automation_runs')).rows[0].n ===
          BURSTS * 6,
      20_000,
    );
    await until(
      'the automations.event job to end',
      async () => (await t.db.pool.query("SELECT 1 FROM jobs WHERE kind = 'automations.event'")).rowCount === 0,
      10_000,
    );
    const lease = lines.filter((l) => /lease/.test(l.msg));
    assert.deepEqual(lease, [], 'no lease taken over from the live process');
    const runs = await t.db.pool.query<{ email: string; n: number }>(
      'SELECT email, count(*)::int AS n FROM automation_runs GROUP BY email HAVING count(*) > 1',
    );
    assert.deepEqual(runs.rows, [], 'one run per event');
  });
});

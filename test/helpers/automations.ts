// The automations tests' SDK steps: send an event and wait until the worker's event queue has taken
// it (its runs started or resumed), and read an automation's runs, failing on an SDK error.
import assert from 'node:assert/strict';
import type { CaptureApp } from './capture-app.js';
import { until } from './until.js';

export function automationCalls(app: () => CaptureApp) {
  /** POST /events/send through the SDK, then until the automations' event queue has taken it. */
  const sendEvent = async (...args: Parameters<CaptureApp['resend']['events']['send']>) => {
    const t = app();
    const r = await t.resend.events.send(...args);
    await until(
      'the event queue to be taken',
      async () => (await t.db.pool.query('SELECT 1 FROM automation_event_queue')).rowCount === 0,
      20_000,
    );
    return r;
  };
  const runsOf = async (automationId: string) => {
    const r = await app().resend.automations.runs.list({ automationId });
    assert.equal(r.error, null, JSON.stringify(r.error));
    return r.data!.data;
  };
  const runOf = async (automationId: string, runId: string) => {
    const r = await app().resend.automations.runs.get({ automationId, runId });
    assert.equal(r.error, null, JSON.stringify(r.error));
    return r.data!;
  };
  return { sendEvent, runsOf, runOf };
}

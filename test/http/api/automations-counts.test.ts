// GET /automations/:id/counts (Mailroom extension): per step, the runs that reached it, wait at it,
// exited or failed there, and a send step's emails with their delivered/opened/clicked counts.
// Runs start from POST /events/send through the real SDK; the emails go over SMTP to a recording MX
// (mail world, mx delivery mode) and one of them is opened through its tracking pixel.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { automationCalls } from '../../helpers/automations.js';
import type { CaptureApp } from '../../helpers/capture-app.js';
import { otherTeamClient } from '../../helpers/harness.js';
import { startMailWorld, type MailWorld } from '../../helpers/mail-world.js';
import { until } from '../../helpers/until.js';

const publicUrl = 'https://track.mailroom.test';

interface StepCounts {
  key: string;
  type: string;
  reached: number;
  waiting: number;
  exited: number;
  failed: number;
  emails?: { sent: number; delivered: number; opened: number; clicked: number };
}

describe('automation step counts', () => {
  let w: MailWorld;
  const { sendEvent, runsOf } = automationCalls(() => w.t as unknown as CaptureApp);
  const counts = async (id: string) => {
    const r = await w.t.api('GET', `/automations/${id}/counts`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body as { object: string; id: string; steps: StepCounts[] };
  };
  const row = (s: StepCounts) => [s.key, s.reached, s.waiting, s.exited, s.failed];

  before(async () => {
    w = await startMailWorld({ publicUrl });
    const on = await w.t.api('PATCH', `/domains/${w.domainId}`, { body: { open_tracking: true } });
    assert.equal(on.status, 200, JSON.stringify(on.body));
  });
  after(() => w.close());

  test('reached, waiting, exited, failed per step, and the emails a send produced: delivered, opened, clicked', async () => {
    const tpl = await w.t.resend.templates.create({
      name: 'Pro welcome',
      from: 'Acme <hello@example.com>',
      subject: 'Welcome, pro',
      html: '<html><body><p>Welcome</p></body></html>',
    } as never);
    assert.equal(tpl.error, null, JSON.stringify(tpl.error));
    assert.equal((await w.t.resend.templates.publish(tpl.data!.id)).error, null);
    const c = await w.t.resend.automations.create({
      name: 'Journey',
      status: 'enabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'journey.start' } },
        {
          key: 'is_pro',
          type: 'condition',
          config: { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' } as never,
        },
        { key: 'welcome', type: 'send_email', config: { template: { id: tpl.data!.id } } },
        { key: 'hold', type: 'wait_for_event', config: { eventName: 'journey.done' } },
      ],
      // The condition's "not met" branch is left empty: those runs end at the condition.
      connections: [
        { from: 'start', to: 'is_pro' },
        { from: 'is_pro', to: 'welcome', type: 'condition_met' },
        { from: 'welcome', to: 'hold' },
      ],
    });
    assert.equal(c.error, null, JSON.stringify(c.error));
    const id = c.data!.id;

    const before = await counts(id);
    assert.equal(before.object, 'automation_counts');
    assert.deepEqual(before.steps.map(row), [
      ['start', 0, 0, 0, 0],
      ['is_pro', 0, 0, 0, 0],
      ['welcome', 0, 0, 0, 0],
      ['hold', 0, 0, 0, 0],
    ]);
    assert.deepEqual(before.steps[2].emails, { sent: 0, delivered: 0, opened: 0, clicked: 0 });
    assert.equal(before.steps[1].emails, undefined, 'only send steps count emails');

    for (const who of ['ann', 'bob', 'cat'])
      assert.equal(
        (await sendEvent({ event: 'journey.start', email: `${who}@dest.test`, payload: { plan: 'pro' } })).error,
        null,
      );
    for (const who of ['dan', 'eve'])
      assert.equal(
        (await sendEvent({ event: 'journey.start', email: `${who}@dest.test`, payload: { plan: 'free' } })).error,
        null,
      );

    // Until the three pro runs wait at `hold` and their emails were delivered over SMTP.
    await until(
      'three runs waiting at hold, three emails delivered',
      async () => {
        const s = (await counts(id)).steps;
        return s[3].waiting === 3 && s[2].emails!.delivered === 3;
      },
      60_000,
    );
    assert.deepEqual(
      w.mx.messages.flatMap((m) => m.rcptTo).sort(),
      ['ann@dest.test', 'bob@dest.test', 'cat@dest.test'],
      'the recording MX received one email per pro run',
    );

    // Ann opens hers (the tracking pixel); Cat's run is resumed and ends after the wait.
    const { rows } = await w.t.db.pool.query(`SELECT raw FROM emails WHERE 'ann@dest.test' = ANY (to_addrs)`);
    assert.equal(rows.length, 1);
    const html = (await simpleParser(rows[0].raw)).html as string;
    const pixel = /src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(html)![1];
    assert.equal((await fetch(pixel.replace(publicUrl, w.t.url))).status, 200);
    assert.equal((await sendEvent({ event: 'journey.done', email: 'cat@dest.test' })).error, null);

    const after = await until(
      "the open counted and Cat's run ended",
      async () => {
        const x = await counts(id);
        return x.steps[2].emails!.opened === 1 && x.steps[3].exited === 1 && x;
      },
      30_000,
    );
    assert.deepEqual(after.steps.map(row), [
      // key, reached, waiting, exited, failed
      ['start', 5, 0, 0, 0],
      ['is_pro', 5, 0, 2, 0], // Dan and Eve: the empty "not met" branch ends their runs here
      ['welcome', 3, 0, 0, 0],
      ['hold', 3, 2, 1, 0], // Ann and Bob still wait; Cat's event ended hers
    ]);
    assert.deepEqual(after.steps[2].emails, { sent: 3, delivered: 3, opened: 1, clicked: 0 });
    assert.deepEqual(
      after.steps.map((s) => s.type),
      ['trigger', 'condition', 'send_email', 'wait_for_event'],
    );

    // The runs list names each run's contact address.
    const runs = await runsOf(id);
    assert.deepEqual(runs.map((r) => (r as unknown as { email: string }).email).sort(), [
      'ann@dest.test',
      'bob@dest.test',
      'cat@dest.test',
      'dan@dest.test',
      'eve@dest.test',
    ]);

    // No such automation, or another team's: 404; a sending_access key: 401 restricted_api_key.
    const none = await w.t.api('GET', '/automations/00000000-0000-4000-8000-000000000000/counts');
    assert.equal(none.status, 404);
    const other = await otherTeamClient(w.t, 'Other team');
    const theirs = await other.automations.create({
      name: 'Theirs',
      steps: [{ key: 't', type: 'trigger', config: { eventName: 'x.y' } }],
      connections: [],
    });
    assert.equal(theirs.error, null, JSON.stringify(theirs.error));
    assert.equal((await w.t.api('GET', `/automations/${theirs.data!.id}/counts`)).status, 404);
    const sender = await w.t.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const refused = await fetch(`${w.t.url}/automations/${id}/counts`, {
      headers: { authorization: `Bearer ${sender.data!.token}` },
    });
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { name: string }).name, 'restricted_api_key');
  });
});

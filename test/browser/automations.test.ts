// The Automations and Events pages in Chromium at 1440×900: the owner builds a welcome series in
// the builder (trigger, a send, a wait for user.activated with a timeout, a step in each branch),
// sees the API's 422 on the wait step while its timeout branch is empty, saves, finds the same graph
// through the API, turns it on, and after POST /events/send (and a fast-forwarded timeout for a
// second contact) reads each run's step timeline. The Events page filters by name and contact, a
// contact's page lists its events, and at 390×844 none of these pages is wider than the phone.
import { after, before, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser, Page } from 'playwright-core';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import {
  browserSkip,
  browserTest,
  desktopPage,
  launchBrowser,
  PHONE,
  screenshots,
  setUpOwner,
} from '../helpers/browser.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';

describe('Automations and Events pages in a browser', { timeout: 300_000 }, () => {
  let t: CaptureApp;
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];
  const shots = screenshots('mailroom-automations');
  const shot = (name: string, p: Page = page) => shots.shot(name, p);
  const ids = { welcome: '', thanks: '', reminder: '', automation: '', run: '', timedOutRun: '', contact: '' };

  const template = async (
    name: string,
    subject: string,
    variables: { key: string; type: 'string'; fallback_value?: string }[] = [],
  ) => {
    const c = await t.api('POST', '/templates', {
      body: { name, from: 'Acme <hello@example.com>', subject, html: `<p>${subject}</p>`, variables },
    });
    assert.equal(c.status, 201, JSON.stringify(c.body));
    assert.equal((await t.api('POST', `/templates/${c.body.id}/publish`)).status, 200);
    return c.body.id as string;
  };
  const run = async (runId: string) => (await t.api('GET', `/automations/${ids.automation}/runs/${runId}`)).body;
  const stepsOf = async (runId: string) =>
    Object.fromEntries((await run(runId)).steps.map((s: any) => [s.key, s.status]));

  before(async () => {
    if (browserSkip) return; // every test below is reported skipped
    t = await startCaptureApp();
    ids.welcome = await template('Welcome', 'Welcome to {{{PLAN}}}', [
      { key: 'PLAN', type: 'string', fallback_value: 'the free plan' },
    ]);
    ids.thanks = await template('Thanks for activating', 'You are all set');
    ids.reminder = await template('Activation reminder', 'Finish setting up');
    assert.equal(
      (
        await t.api('POST', '/templates', {
          body: {
            name: 'Unpublished draft',
            from: 'Acme <hello@example.com>',
            subject: 'never listed',
            html: '<p>draft</p>',
          },
        })
      ).status,
      201,
    );
    for (const name of ['user.created', 'user.activated'])
      assert.equal((await t.api('POST', '/events', { body: { name } })).status, 201);
    browser = await launchBrowser();
    page = await desktopPage(browser, errors, { width: 1440, height: 900 });
  });
  after(async () => {
    await closeAll(
      () => browser?.close(),
      () => t?.close(),
    );
    shots.report();
  });

  browserTest(
    "the owner builds a welcome series with a wait branch; the API's 422 shows on the wait step until its timeout branch has a step",
    async () => {
      await page.goto(t.url + '/');
      await page.getByRole('heading', { name: 'Welcome to Mailroom' }).waitFor();
      await setUpOwner(page);
      await page.getByRole('link', { name: 'Automations' }).click();
      await page.getByRole('heading', { name: 'No automations yet' }).waitFor();
      await page.getByRole('button', { name: 'New automation' }).click();
      await page.getByRole('heading', { name: 'New automation' }).waitFor();

      await page.getByLabel('Name', { exact: true }).fill('Welcome series');
      await page.getByLabel('trigger: event', { exact: true }).selectOption('user.created');
      await page.getByRole('button', { name: 'Add step after trigger' }).click(); // "Send email" is the default choice
      const templates = await page.getByLabel('send_email_1: template').locator('option').allInnerTexts();
      assert.deepEqual(
        templates.slice(1).sort(),
        ['Activation reminder', 'Thanks for activating', 'Welcome'],
        'published templates only',
      );
      await page.getByLabel('send_email_1: template').selectOption({ label: 'Welcome' });
      await page.getByLabel('send_email_1: PLAN: from').selectOption('event');
      await page.getByLabel('send_email_1: PLAN', { exact: true }).fill('plan');

      await page.getByLabel('Step to add after send_email_1').selectOption({ label: 'Wait for event' });
      await page.getByRole('button', { name: 'Add step after send_email_1' }).click();
      await page.getByLabel('wait_for_event_1: event', { exact: true }).selectOption('user.activated');
      await page.getByLabel('wait_for_event_1: timeout: amount').fill('2');
      // A step added in the middle and removed again leaves the flow as it was.
      await page.getByLabel('Step to add after send_email_1').selectOption({ label: 'Delay' });
      await page.getByRole('button', { name: 'Add step after send_email_1' }).click();
      assert.deepEqual(
        await page.getByTestId('step').evaluateAll((els) => els.map((e) => e.getAttribute('data-key'))),
        ['trigger', 'send_email_1', 'delay_1', 'wait_for_event_1'],
      );
      await page.getByRole('button', { name: 'Remove step delay_1' }).click();
      assert.deepEqual(
        await page.getByTestId('step').evaluateAll((els) => els.map((e) => e.getAttribute('data-key'))),
        ['trigger', 'send_email_1', 'wait_for_event_1'],
      );
      await page.getByRole('button', { name: 'Add step after wait_for_event_1: The event arrived' }).click();
      await page.getByLabel('send_email_2: template').selectOption({ label: 'Thanks for activating' });

      // The timeout branch is still empty: the server refuses the graph and the builder puts its words on the wait.
      await page.getByRole('button', { name: 'Create automation' }).click();
      const wait = page.getByRole('region', { name: 'Step wait_for_event_1' });
      await wait.getByRole('alert').filter({ hasText: 'the wait has a timeout but no timeout connection' }).waitFor();
      await page.getByText('Not saved: step wait_for_event_1 needs a change').waitFor();
      await shot('01-builder-error-on-step');

      await page.getByRole('button', { name: 'Add step after wait_for_event_1: Timed out' }).click();
      await page.getByLabel('send_email_3: template').selectOption({ label: 'Activation reminder' });
      await shot('02-builder-complete');
      await page.getByRole('button', { name: 'Create automation' }).click();
      await page.getByRole('heading', { name: 'Welcome series' }).waitFor();
      ids.automation = page.url().split('/').pop()!;
      assert.deepEqual(errors, []);
    },
  );

  browserTest(
    'the saved graph is what the API returns; turned on, an event starts a run whose timeline the run page shows',
    async () => {
      const a = await t.api('GET', `/automations/${ids.automation}`);
      assert.equal(a.status, 200);
      assert.equal(a.body.status, 'disabled');
      assert.deepEqual(a.body.steps, [
        { key: 'trigger', type: 'trigger', config: { event_name: 'user.created' } },
        {
          key: 'send_email_1',
          type: 'send_email',
          config: { template: { id: ids.welcome, variables: { PLAN: { var: 'event.plan' } } } },
        },
        {
          key: 'wait_for_event_1',
          type: 'wait_for_event',
          config: { event_name: 'user.activated', timeout: '2 days' },
        },
        { key: 'send_email_2', type: 'send_email', config: { template: { id: ids.thanks, variables: {} } } },
        { key: 'send_email_3', type: 'send_email', config: { template: { id: ids.reminder, variables: {} } } },
      ]);
      assert.deepEqual(a.body.connections, [
        { from: 'trigger', to: 'send_email_1', type: 'default' },
        { from: 'send_email_1', to: 'wait_for_event_1', type: 'default' },
        { from: 'wait_for_event_1', to: 'send_email_2', type: 'event_received' },
        { from: 'wait_for_event_1', to: 'send_email_3', type: 'timeout' },
      ]);

      await page.getByRole('button', { name: 'Turn on…' }).click();
      await page.getByRole('button', { name: 'Turn on Welcome series' }).click();
      await page.locator('.page-head .badge', { hasText: 'enabled' }).waitFor();
      assert.equal((await t.api('GET', `/automations/${ids.automation}`)).body.status, 'enabled');

      assert.equal(
        (
          await t.api('POST', '/events/send', {
            body: { event: 'user.created', email: 'ada@dest.test', payload: { plan: 'pro' } },
          })
        ).status,
        202,
      );
      ids.run = await until(
        'a run',
        async () => (await t.api('GET', `/automations/${ids.automation}/runs`)).body.data[0]?.id,
        30_000,
      );
      await until(
        'the run waits for user.activated',
        async () => (await stepsOf(ids.run)).wait_for_event_1 === 'waiting',
        30_000,
      );
      assert.equal(
        (
          await t.api('POST', '/events/send', {
            body: { event: 'user.activated', email: 'ada@dest.test', payload: { via: 'app' } },
          })
        ).status,
        202,
      );
      await until('the run completes', async () => (await run(ids.run)).status === 'completed', 30_000);

      await page.getByRole('button', { name: 'Refresh' }).click();
      await page
        .getByTestId('runs')
        .getByRole('link', { name: ids.run.slice(0, 8) })
        .click();
      await page.getByRole('heading', { name: `Run ${ids.run.slice(0, 8)}` }).waitFor();
      const steps = page.getByTestId('run-step');
      await steps.nth(3).waitFor();
      assert.equal(await steps.count(), 4, 'the timeout branch was not taken');
      assert.deepEqual(await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-key'))), [
        'trigger',
        'send_email_1',
        'wait_for_event_1',
        'send_email_2',
      ]);
      const texts = await steps.allInnerTexts();
      for (const [i, kind] of ['Trigger', 'Send email', 'Wait for event', 'Send email'].entries())
        assert.match(texts[i], new RegExp(`^${kind}[\\s\\S]*completed`, 'i'));
      assert.match(texts[2], /user\.activated/);
      const sent = (await run(ids.run)).steps.find((s: any) => s.key === 'send_email_1').output.email_id;
      await page.getByRole('link', { name: sent }).waitFor();
      const subject = (await t.db.pool.query('SELECT subject FROM emails WHERE id = $1', [sent])).rows[0].subject;
      assert.equal(subject, 'Welcome to pro');
      await shot('03-run-timeline-event-received');
      assert.deepEqual(errors, []);
    },
  );

  browserTest('a run whose wait times out takes the reminder branch, and its page shows it', async () => {
    assert.equal(
      (await t.api('POST', '/events/send', { body: { event: 'user.created', email: 'bob@dest.test' } })).status,
      202,
    );
    ids.timedOutRun = await until(
      'a second run',
      async () => (await t.api('GET', `/automations/${ids.automation}/runs?status=running`)).body.data[0]?.id,
      30_000,
    );
    await until(
      'the second run waits',
      async () => (await stepsOf(ids.timedOutRun)).wait_for_event_1 === 'waiting',
      30_000,
    );
    // The timeout is a job due in 2 days: bring it forward instead of waiting (the job itself is unchanged).
    const moved = await t.db.pool.query(`UPDATE jobs SET run_at = now() WHERE kind = 'automations.wake' AND key = $1`, [
      `${ids.timedOutRun}:wait_for_event_1:wake`,
    ]);
    assert.equal(moved.rowCount, 1);
    await t.db.pool.query(`SELECT pg_notify('mailroom_jobs', 'automations.wake')`);
    await until('the second run completes', async () => (await run(ids.timedOutRun)).status === 'completed', 30_000);
    await page.goto(`${t.url}/dashboard/automations/${ids.automation}/runs/${ids.timedOutRun}`);
    const steps = page.getByTestId('run-step');
    await steps.nth(3).waitFor();
    const keys = await steps.evaluateAll((els) => els.map((e) => e.getAttribute('data-key')));
    assert.deepEqual(keys, ['trigger', 'send_email_1', 'wait_for_event_1', 'send_email_3']);
    await shot('04-run-timeline-timed-out');

    await page.goto(`${t.url}/dashboard/automations/${ids.automation}`);
    const rows = page.getByTestId('runs').locator('tbody tr');
    await rows.nth(1).waitFor();
    assert.equal(await rows.count(), 2);
    assert.match(await rows.first().innerText(), /completed/i);
    await shot('05-automation-with-runs');
    assert.deepEqual(errors, []);
  });

  browserTest(
    "the Events page lists recent events, by name and by contact; a contact's page lists its events",
    async () => {
      await page.getByRole('link', { name: 'Events', exact: true }).click();
      await page.getByRole('heading', { name: 'Events', exact: true }).waitFor();
      const rows = page.getByTestId('events').locator('tbody tr');
      await rows.nth(2).waitFor();
      assert.equal(await rows.count(), 3);
      assert.match(await rows.first().innerText(), /user\.created[\s\S]*bob@dest\.test/);
      await shot('06-events');

      await page.getByLabel('Event name', { exact: true }).selectOption('user.activated');
      await page.getByText('Showing 1 events named user.activated').waitFor();
      assert.match(await rows.first().innerText(), /ada@dest\.test[\s\S]*"via":"app"/);
      await page.getByRole('button', { name: 'Clear filters' }).click();
      await rows.nth(2).waitFor();
      await page.getByLabel('Contact', { exact: true }).fill('ada@dest.test');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.getByText('Showing 2 events of ada@dest.test').waitFor();
      assert.deepEqual(
        (await rows.allInnerTexts()).map((r) => r.split('\t')[0].trim()),
        ['user.activated', 'user.created'],
      );
      await shot('07-events-by-contact');

      await rows.first().getByRole('link', { name: 'ada@dest.test' }).click();
      await page.getByRole('heading', { name: 'ada@dest.test' }).waitFor();
      ids.contact = page.url().split('/').pop()!;
      const mine = page.getByTestId('contact-events').locator('tbody tr');
      await mine.nth(1).waitFor();
      assert.equal(await mine.count(), 2);
      assert.match(await mine.first().innerText(), /user\.activated/);
      await shot('08-contact-events');
      assert.deepEqual(errors, []);
    },
  );

  browserTest(
    'Stop runs turns the automation off and cancels a waiting run; Duplicate makes a disabled copy; a graph the builder cannot draw opens as JSON',
    async () => {
      assert.equal(
        (await t.api('POST', '/events/send', { body: { event: 'user.created', email: 'cy@dest.test' } })).status,
        202,
      );
      const waiting = await until(
        'a third run',
        async () => (await t.api('GET', `/automations/${ids.automation}/runs?status=running`)).body.data[0]?.id,
        30_000,
      );
      await until('the third run waits', async () => (await stepsOf(waiting)).wait_for_event_1 === 'waiting', 30_000);
      await page.goto(`${t.url}/dashboard/automations/${ids.automation}`);
      await page.getByRole('heading', { name: 'Welcome series' }).waitFor();
      page.once('dialog', (d) => {
        void d.accept();
      });
      await page.getByRole('button', { name: 'Stop runs' }).click();
      await page.locator('.page-head .badge', { hasText: 'disabled' }).waitFor();
      assert.equal((await run(waiting)).status, 'cancelled');
      await page.getByLabel('Run status').selectOption('cancelled');
      // The unfiltered list also shows this run: wait for the filtered one (one row, only this run), not
      // for the link alone, which a reload in flight can take away between a wait and a count.
      await page.waitForFunction(
        (id) => {
          const rows = [...document.querySelectorAll('[data-testid=runs] tbody tr')];
          return rows.length === 1 && (rows[0].textContent ?? '').includes(id);
        },
        waiting.slice(0, 8),
        { timeout: 30_000 },
      );

      await page.getByRole('button', { name: 'Duplicate' }).click();
      await page.getByRole('heading', { name: 'Welcome series (copy)' }).waitFor();
      await page.getByRole('region', { name: 'Step send_email_3' }).waitFor();
      const copyId = page.url().split('/').pop()!;
      assert.notEqual(copyId, ids.automation);
      const copy = (await t.api('GET', `/automations/${copyId}`)).body;
      assert.equal(copy.status, 'disabled');
      assert.equal(copy.steps.length, 5);

      // Both branches of a condition going to one step: valid for the API, not drawable as a tree.
      const joined = await t.api('POST', '/automations', {
        body: {
          name: 'Joined branches',
          steps: [
            { key: 'start', type: 'trigger', config: { event_name: 'user.created' } },
            { key: 'check', type: 'condition', config: { type: 'rule', field: 'event.plan', operator: 'exists' } },
            { key: 'hello', type: 'send_email', config: { template: { id: ids.welcome } } },
          ],
          connections: [
            { from: 'start', to: 'check' },
            { from: 'check', to: 'hello', type: 'condition_met' },
            { from: 'check', to: 'hello', type: 'condition_not_met' },
          ],
        },
      });
      assert.equal(joined.status, 201, JSON.stringify(joined.body));
      await page.goto(`${t.url}/dashboard/automations/${joined.body.id}`);
      await page.getByText('joins branches in a way the builder does not draw').waitFor();
      assert.match(await page.getByLabel('Steps and connections').inputValue(), /"condition_not_met"/);
      assert.deepEqual(errors, []);
    },
  );

  browserTest(
    'an API-made graph with a delay, a nested and/or condition and contact steps opens in the builder unchanged; edits save back; a bad rule is flagged on its step',
    async () => {
      const segment = await t.api('POST', '/segments', { body: { name: 'Pro users' } });
      assert.equal(segment.status, 201, JSON.stringify(segment.body));
      const rule = {
        type: 'or',
        rules: [
          { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
          {
            type: 'and',
            rules: [
              { type: 'rule', field: 'contact.first_name', operator: 'starts_with', value: 'A' },
              { type: 'rule', field: 'event.seats', operator: 'gte', value: 5 },
            ],
          },
        ],
      };
      const graph = {
        steps: [
          { key: 'start', type: 'trigger', config: { event_name: 'plan.changed' } },
          { key: 'later', type: 'delay', config: { duration: '2 hours' } },
          { key: 'is_pro', type: 'condition', config: rule },
          { key: 'join', type: 'add_to_segment', config: { segment_id: segment.body.id } },
          { key: 'rename', type: 'contact_update', config: { first_name: { var: 'event.name' } } },
        ],
        connections: [
          { from: 'start', to: 'later', type: 'default' },
          { from: 'later', to: 'is_pro', type: 'default' },
          { from: 'is_pro', to: 'join', type: 'condition_met' },
          { from: 'is_pro', to: 'rename', type: 'condition_not_met' },
        ],
      };
      const made = await t.api('POST', '/automations', { body: { name: 'Plan changes', ...graph } });
      assert.equal(made.status, 201, JSON.stringify(made.body));
      await page.goto(`${t.url}/dashboard/automations/${made.body.id}`);
      await page.getByRole('heading', { name: 'Plan changes' }).waitFor();
      await page.getByRole('region', { name: 'Step rename' }).waitFor();
      assert.equal(
        await page.getByRole('button', { name: 'Save', exact: true }).isDisabled(),
        true,
        'nothing changed yet',
      );
      assert.equal(await page.getByLabel('later: duration: amount').inputValue(), '2');
      assert.equal(await page.getByLabel('later: duration: unit').inputValue(), 'hour');
      assert.equal(await page.getByLabel('is_pro: match').inputValue(), 'or');
      assert.equal(await page.getByLabel('is_pro group 2 rule 2: operator').inputValue(), 'gte');
      assert.equal(await page.getByLabel('join: segment').inputValue(), segment.body.id);
      assert.equal(await page.getByLabel('rename: first name: from').inputValue(), 'event');

      await page.getByLabel('later: duration: amount').fill('3');
      await page.getByLabel('later: duration: unit').selectOption('day');
      await page.getByLabel('is_pro rule 1: value', { exact: true }).fill('team');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await until(
        'the edit is saved',
        async () => (await t.api('GET', `/automations/${made.body.id}`)).body.steps[1].config.duration === '3 days',
        15_000,
      );
      // The builder has taken the answer too (Save is disabled again): an edit made before that
      // could be replaced by the saved graph, or its Save click land while the first one is in flight.
      await until(
        'the builder shows the save done',
        () => page.getByRole('button', { name: 'Save', exact: true }).isDisabled(),
        15_000,
      );
      const saved = (await t.api('GET', `/automations/${made.body.id}`)).body;
      assert.deepEqual(saved.steps[2].config, { ...rule, rules: [{ ...rule.rules[0], value: 'team' }, rule.rules[1]] });
      assert.deepEqual(saved.steps.slice(3), graph.steps.slice(3));
      assert.deepEqual(saved.connections, graph.connections);

      // "is more than" needs a number: the server's 422 lands on the condition step.
      await page.getByLabel('is_pro rule 1: operator').selectOption('gt');
      await page.getByLabel('is_pro rule 1: value', { exact: true }).fill('many');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page
        .getByRole('region', { name: 'Step is_pro' })
        .getByRole('alert')
        .filter({ hasText: 'must be a number for gt' })
        .waitFor();
      await shot('09-condition-error-on-step');
      assert.deepEqual(errors, []);
    },
  );

  browserTest('on a 390×844 phone the automation, run and events pages are not wider than the screen', async () => {
    const ctx = await browser.newContext({
      viewport: PHONE,
      colorScheme: 'light',
      isMobile: true,
      hasTouch: true,
      storageState: await page.context().storageState(),
    });
    ctx.setDefaultTimeout(10_000);
    const phone = await ctx.newPage();
    phone.on('pageerror', (e) => errors.push(e.message));
    const wide: string[] = [];
    const paths = [
      '/automations',
      `/automations/${ids.automation}`,
      `/automations/${ids.automation}/runs/${ids.run}`,
      '/automations/new',
      '/events',
      `/contacts/${ids.contact}`,
    ];
    for (const p of paths) {
      await phone.goto(`${t.url}/dashboard${p}`);
      await phone.locator('main h1').first().waitFor();
      await phone.waitForFunction(() => !document.querySelector('.loading'), undefined, { timeout: 10_000 });
      const m = await phone.evaluate(() => ({
        doc: document.documentElement.scrollWidth,
        body: document.body.scrollWidth,
      }));
      if (m.doc > PHONE.width || m.body > PHONE.width) wide.push(`${p}: ${m.doc} px`);
      await shot(`phone${p.replace(/\//g, '-').replace(/-[0-9a-f-]{36}/g, '-id')}`, phone);
    }
    assert.deepEqual(wide, [], 'pages wider than 390 px');
    await ctx.close();
    assert.deepEqual(errors, []);
  });
});

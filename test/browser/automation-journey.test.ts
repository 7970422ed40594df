// Issue 30's done-means for journeys, in Chromium at 1440×900 and on a 390×844 phone: the owner builds
// an automation in the builder (trigger, a send of a published template, a wait for an event), saves
// it, turns it on as its own confirmed step, and watches the canvas's counts move as events arrive
// through the SDK (POST /events/send), without reloading: the send's email counted and delivered, the
// run waiting at the wait, then leaving it when the awaited event comes. On the phone the same is done
// with the builder's branches stacked, and no page is wider than the screen.
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import type { CaptureApp } from '../helpers/capture-app.js';
import {
  assertFits,
  browserTest,
  captureSuite,
  ownerPage,
  ownerPhone,
  PHONE,
  untilReRead,
} from '../helpers/browser.js';

describe('An automation built, turned on and watched on its canvas', { timeout: 300_000 }, () => {
  const s = captureSuite('mailroom-automation-journey', {
    async setUp(t: CaptureApp) {
      const c = await t.api('POST', '/templates', {
        body: { name: 'Journey hello', from: 'Acme <hello@example.com>', subject: 'Hello', html: '<p>Hello</p>' },
      });
      assert.equal(c.status, 201, JSON.stringify(c.body));
      assert.equal((await s.t.api('POST', `/templates/${c.body.id}/publish`)).status, 200);
      for (const name of ['journey.start', 'journey.done'])
        assert.equal((await s.t.api('POST', '/events', { body: { name } })).status, 201);
    },
  });

  const card = (p: Page, key: string) => p.locator(`[data-testid="canvas-step"][data-key="${key}"]`);
  /** The page re-reads the counts by itself every 4 s (no reload); at most 30 s of real time. */
  const reRead = (p: Page, shown: Locator) => untilReRead(p, shown, 4000, 30_000);
  /** Until the card's count reads `n`. */
  const expectCount = (p: Page, key: string, name: string, n: number) =>
    reRead(
      p,
      card(p, key)
        .locator(`[data-count="${name}"]`)
        .filter({ hasText: new RegExp(`^${n}$`) }),
    );
  const event = async (name: string, email: string) =>
    assert.equal((await s.t.resend.events.send({ event: name, email })).error, null);

  const journey = async (p: Page, width: number, name: string, who: string) => {
    await p.clock.install(); // time runs as usual; reRead moves it on
    await p.goto(`${s.t.url}/dashboard/automations`);
    await p.getByRole('button', { name: 'New automation' }).click();
    await p.getByRole('heading', { name: 'New automation' }).waitFor();
    await p.getByLabel('Name', { exact: true }).fill(name);
    await p.getByLabel('trigger: event', { exact: true }).selectOption('journey.start');
    await p.getByRole('button', { name: 'Add step after trigger' }).click(); // "Send email" is the default choice
    await p.getByLabel('send_email_1: template').selectOption({ label: 'Journey hello' });
    await p.getByLabel('Step to add after send_email_1').selectOption({ label: 'Wait for event' });
    await p.getByRole('button', { name: 'Add step after send_email_1' }).click();
    await p.getByLabel('wait_for_event_1: event', { exact: true }).selectOption('journey.done');
    await assertFits(p, width);
    await s.shots.shot(`${width}-01-built`, p);
    await p.getByRole('button', { name: 'Create automation' }).click();
    await p.getByRole('heading', { name }).waitFor();
    const id = p.url().split('/').pop()!;
    assert.equal((await s.t.api('GET', `/automations/${id}`)).body.status, 'disabled', 'saving does not turn it on');

    // Turning on is its own step, confirmed by name.
    await p.getByRole('button', { name: 'Turn on…' }).click();
    await p.getByRole('button', { name: `Turn on ${name}` }).click();
    await p.locator('.page-head .badge', { hasText: 'enabled' }).waitFor();
    assert.equal((await s.t.api('GET', `/automations/${id}`)).body.status, 'enabled');

    await p.getByRole('heading', { name: 'Journey', exact: true }).waitFor();
    for (const k of ['trigger', 'send_email_1', 'wait_for_event_1']) await expectCount(p, k, 'reached', 0);
    await card(p, 'send_email_1').getByText('Journey hello').waitFor();

    await event('journey.start', who);
    await expectCount(p, 'trigger', 'reached', 1);
    await expectCount(p, 'send_email_1', 'emails', 1);
    await expectCount(p, 'wait_for_event_1', 'waiting', 1);
    await reRead(p, card(p, 'send_email_1').locator('[data-rate="delivered"]', { hasText: '100% delivered' }));
    await s.shots.shot(`${width}-02-waiting`, p);

    await event('journey.done', who);
    await expectCount(p, 'wait_for_event_1', 'waiting', 0);
    await expectCount(p, 'wait_for_event_1', 'exited', 1);
    await assertFits(p, width);
    await s.shots.shot(`${width}-03-done`, p);
    assert.deepEqual(s.errors, []);
  };

  browserTest('at 1440 px: build, save, turn on, and the counts move as events arrive', async () => {
    const page = await ownerPage(s.browser, s.t.url, s.errors, { width: 1440, height: 900 });
    await journey(page, 1440, 'Desk journey', 'desk@dest.test');
    await page.context().close();
  });

  browserTest('on a 390 px phone: the same journey built and watched', async () => {
    const phone = await ownerPhone(s.browser, s.t.url, s.errors);
    await journey(phone, PHONE.width, 'Phone journey', 'phone@dest.test');
    await phone.context().close();
  });
});

// The API keys page in Chromium, at 1440 px and on a 390 px phone: a key created with an expiry and
// allowed networks shows both in the table, the API holds them (GET /dashboard-api/api-keys and the
// audit entry), and the key works only from an allowed network; a bad network is refused in the
// API's words. The limits are then changed from the page (PATCH /api-keys/:id, audited).
import { describe } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { assertFits, browserTest, captureSuite, OWNER, ownerPage, ownerPhone, PHONE } from '../helpers/browser.js';

describe('API keys with an expiry and allowed networks in a browser', { timeout: 150_000 }, () => {
  const s = captureSuite('mailroom-api-keys');

  const run = (
    name: string,
    width: number,
    open: () => Promise<Page>,
    key: { name: string; networks: string; stored: string[]; works: boolean },
  ) =>
    browserTest(`${name}: a key with an expiry and networks created from the page`, async () => {
      const page = await open();
      await page.goto(`${s.t.url}/dashboard/api-keys`);
      await page.getByRole('heading', { name: 'API keys' }).waitFor();
      const expires = new Date(Date.now() + 90 * 86_400_000);
      const local = new Date(expires.getTime() - expires.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

      // A network that is not one: the API's refusal.
      await page.getByLabel('Name').fill(key.name);
      await page.getByLabel('Allowed networks (optional)').fill('10.0.0.0/8, not-a-network');
      await page.getByRole('button', { name: 'Create key' }).click();
      const refusal = page.getByRole('alert');
      await refusal.waitFor();
      assert.match((await refusal.textContent()) ?? '', /allowed networks 1.*IPv4 or IPv6 network/);

      await page.getByLabel('Expires (optional)').fill(local);
      await page.getByLabel('Allowed networks (optional)').fill(key.networks);
      await page.getByRole('button', { name: 'Create key' }).click();
      const token = (await page.getByTestId('new-token').textContent())!.trim();
      const row = page.locator('table.list tbody tr', { hasText: key.name });
      await row.waitFor();
      assert.match((await row.textContent()) ?? '', new RegExp(key.stored.join(', ').replace(/[./]/g, '\\$&')));
      assert.doesNotMatch((await row.textContent()) ?? '', /never.*never/, 'an expiry is shown');
      await s.shots.shot(`api-keys-${width}`, page);

      const listed = await page.evaluate(async () => (await fetch('/dashboard-api/api-keys')).json());
      const k = listed.data.find((x: { name: string }) => x.name === key.name);
      assert.deepEqual(k.allowed_networks, key.stored);
      assert.ok(Math.abs(Date.parse(k.expires_at) - expires.getTime()) < 60_000, `${k.expires_at} vs ${expires}`);
      const audit = await s.t.api('GET', '/audit-log?action=api_key.created');
      const entry = audit.body.data.find((e: { target: { id: string } }) => e.target.id === k.id);
      assert.equal(entry.actor.display, OWNER.email);
      assert.deepEqual(entry.summary.after.allowed_networks, key.stored);
      assert.equal(Date.parse(entry.summary.after.expires_at), Date.parse(k.expires_at));

      // The test talks to the server from 127.0.0.1.
      const res = await s.t.api('GET', '/domains', { key: token });
      if (key.works) assert.equal(res.status, 200, JSON.stringify(res.body));
      else assert.notEqual(res.status, 200, 'refused from a network the key does not allow');

      // Limits changed from the page: the expiry lifted, the networks set to loopback.
      await row.getByRole('button', { name: `Limits of ${key.name}` }).click();
      const form = page.getByRole('form', { name: `Limits of ${key.name}` });
      await form.getByLabel('Expires (empty: never)').fill('');
      await form.getByLabel('Allowed networks (empty: any)').fill('127.0.0.0/8');
      await form.getByRole('button', { name: 'Save limits' }).click();
      await form.waitFor({ state: 'detached' });
      // The row as saved: no expiry, and only 127.0.0.0/8 (a key created with 127.0.0.0/8 among its
      // networks shows that before the save too, so the wait is for the whole new state).
      await page.waitForFunction(
        (name) =>
          [...document.querySelectorAll('table.list tbody tr')].some(
            (tr) =>
              tr.textContent?.includes(name) && /never127\.0\.0\.0\/8(?!,)/.test(tr.textContent.replace(/\s+/g, '')),
          ),
        key.name,
      );
      assert.match((await row.textContent()) ?? '', /never127\.0\.0\.0\/8(?!,)/, 'no expiry, loopback only');
      assert.equal((await s.t.api('GET', '/domains', { key: token })).status, 200, 'the key works from loopback now');
      const updated = (await s.t.api('GET', '/audit-log?action=api_key.updated')).body.data[0];
      assert.equal(updated.target.id, k.id);
      assert.equal(updated.actor.display, OWNER.email);
      assert.deepEqual(updated.summary.after, { expires_at: null, allowed_networks: ['127.0.0.0/8'] });

      await assertFits(page, width);
      assert.deepEqual(s.errors, []);
    });

  run(
    'desktop',
    1440,
    async () => {
      const page = await ownerPage(s.browser, s.t.url, s.errors, { width: 1440, height: 900 });
      return page;
    },
    { name: 'Office only', networks: '10.0.0.0/8', stored: ['10.0.0.0/8'], works: false },
  );

  run(
    'phone',
    PHONE.width,
    async () => {
      const page = await ownerPhone(s.browser, s.t.url, s.errors);
      return page;
    },
    { name: 'Loopback', networks: '127.0.0.0/8 ::1', stored: ['127.0.0.0/8', '::1/128'], works: true },
  );
});

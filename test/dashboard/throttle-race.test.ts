import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { totp } from '../../src/dashboard-auth/totp.js';
import { storeCheapPassword } from '../helpers/cheap-password.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

describe('sign-in throttling holds under concurrent attempts', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    await new DashboardClient(t.url).post('/dashboard-api/setup', OWNER);
    await storeCheapPassword(t.db.pool, OWNER.email, OWNER.password);
  });
  after(async () => {
    await t.close();
  });

  test('100 concurrent wrong passwords for one account get at most 5 checks; the rest are refused 429', async () => {
    const replies = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        new DashboardClient(t.url).post('/dashboard-api/login', {
          email: OWNER.email,
          password: `wrong-password-${i}`,
        }),
      ),
    );
    const checked = replies.filter((r) => r.status === 401).length;
    const refused = replies.filter((r) => r.status === 429).length;
    assert.equal(checked + refused, 100, JSON.stringify(replies.map((r) => r.status)));
    assert.ok(checked <= 5, `${checked} of 100 concurrent guesses were checked (limit 5)`);
    assert.equal(
      (await new DashboardClient(t.url).post('/dashboard-api/login', OWNER)).status,
      429,
      'even the right password waits out the lock',
    );
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  test('a good password gives its attempt back: many sign-ins from one address are not locked out', async () => {
    for (let i = 0; i < 60; i++)
      assert.equal((await new DashboardClient(t.url).post('/dashboard-api/login', OWNER)).status, 200);
  });

  test('30 concurrent wrong TOTP codes get at most 5 checks', async () => {
    const c = new DashboardClient(t.url);
    await c.post('/dashboard-api/login', OWNER);
    const secret = (await c.post('/dashboard-api/account/totp/setup')).body.secret;
    assert.equal((await c.post('/dashboard-api/account/totp/enable', { code: totp(secret) })).status, 200);
    const p = new DashboardClient(t.url);
    assert.equal((await p.post('/dashboard-api/login', OWNER)).body.mfa_required, true);
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => p.post('/dashboard-api/login/mfa', { code: String(100000 + i * 7) })),
    );
    const checked = replies.filter((r) => r.status === 422).length;
    assert.equal(
      checked + replies.filter((r) => r.status === 429).length,
      30,
      JSON.stringify(replies.map((r) => r.status)),
    );
    assert.ok(checked <= 5, `${checked} of 30 concurrent codes were checked (limit 5)`);
  });
});

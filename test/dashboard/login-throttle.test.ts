import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient, type Res } from '../helpers/dashboard-client.js';
import { totp } from '../../src/dashboard-auth/totp.js';
import { storeCheapPassword } from '../helpers/cheap-password.js';
import { ACCOUNT_LOCK_S, PER_ACCOUNT } from '../../src/dashboard-auth/throttle.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };

/** A sign-in from a client behind the reverse proxy: the proxy (127.0.0.1) names it in X-Forwarded-For. */
const loginFrom = (t: TestApp, client: string, password: string, c = new DashboardClient(t.url)): Promise<Res> =>
  c.req('POST', '/dashboard-api/login', { email: OWNER.email, password }, { headers: { 'x-forwarded-for': client } });

/** A sign-in straight from `localAddress` (not the proxy), claiming to be `claimed` in X-Forwarded-For. */
const loginFromPeer = (t: TestApp, localAddress: string, claimed: string, password: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const u = new URL('/dashboard-api/login', t.url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'x-forwarded-for': claimed },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify({ email: OWNER.email, password }));
  });

type Row = { failures: number; locked_until: string | null };
const row = async (t: TestApp, key: string): Promise<Row | undefined> =>
  (await t.db.pool.query<Row>('SELECT failures, locked_until::text FROM login_throttle WHERE key = $1', [key])).rows[0];

describe('sign-in throttling behind a reverse proxy (MAILROOM_TRUST_PROXY set): per account, per account and client, per client', () => {
  let t: TestApp;
  let owner: DashboardClient;
  before(async () => {
    t = await startTestApp({}, { env: { MAILROOM_TRUST_PROXY: '127.0.0.1' } });
    owner = new DashboardClient(t.url);
    assert.equal((await owner.post('/dashboard-api/setup', OWNER)).status, 200);
    await storeCheapPassword(t.db.pool, OWNER.email, OWNER.password);
  });
  after(async () => {
    await t.close();
  });

  test('a hundred wrong passwords from one client leave the owner free to sign in from another', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await loginFrom(t, '203.0.113.1', `wrong-password-${i}`)).status);
    assert.deepEqual(statuses.slice(0, 5), [401, 401, 401, 401, 401]);
    assert.ok(
      statuses.slice(5).every((s) => s === 429),
      JSON.stringify(statuses),
    );
    assert.equal(
      (await row(t, `acct:${OWNER.email}`))?.failures,
      5,
      'only the five checked attempts count against the account',
    );
    const r = await loginFrom(t, '203.0.113.2', OWNER.password);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(
      (await loginFrom(t, '203.0.113.1', OWNER.password)).status,
      429,
      'the guessing client stays locked out of the account',
    );
  });

  test('refused attempts neither count nor move a lock', async () => {
    const keys = [`acct-ip:${OWNER.email}|203.0.113.1`, 'ip:203.0.113.1', `acct:${OWNER.email}`];
    const before = await Promise.all(keys.map((k) => row(t, k)));
    assert.ok(before[0]?.locked_until, 'the account is locked for the guessing client');
    for (let i = 0; i < 20; i++) assert.equal((await loginFrom(t, '203.0.113.1', `more-wrong-${i}`)).status, 429);
    assert.deepEqual(await Promise.all(keys.map((k) => row(t, k))), before);
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  test('wrong passwords sprayed from many clients lock an account without MFA, for a few minutes, from every client', async () => {
    for (let i = 0; i < PER_ACCOUNT; i++)
      assert.equal((await loginFrom(t, `198.51.100.${i}`, `sprayed-${i}`)).status, 401);
    const lock = await row(t, `acct:${OWNER.email}`);
    assert.ok(lock?.locked_until);
    const left = (Date.parse(lock.locked_until) - Date.now()) / 1000;
    assert.ok(left > 0 && left <= ACCOUNT_LOCK_S, `locked for ${left} s`);
    assert.ok(ACCOUNT_LOCK_S <= 5 * 60, 'the owner waits minutes, not a quarter of an hour');
    const r = await loginFrom(t, '198.51.100.200', OWNER.password);
    assert.equal(r.status, 429, 'without a second factor the per-account lock holds even for the right password');
    assert.match(r.body.message, /Too many failed attempts\. Try again in [1-5] minutes?\./);
    assert.deepEqual(await row(t, `acct:${OWNER.email}`), lock, 'the refused attempt did not move the lock');
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  test('with MFA on, the right password goes through a per-account lock to the second factor, and the code signs in', async () => {
    const secret = (await owner.post('/dashboard-api/account/totp/setup')).body.secret;
    assert.equal((await owner.post('/dashboard-api/account/totp/enable', { code: totp(secret) })).status, 200);
    for (let i = 0; i < PER_ACCOUNT; i++)
      assert.equal((await loginFrom(t, `198.51.100.${i}`, `sprayed-${i}`)).status, 401);
    const lock = await row(t, `acct:${OWNER.email}`);
    assert.ok(lock?.locked_until, 'the spray locked the account');
    assert.equal(
      (await loginFrom(t, '198.51.100.100', 'still-guessing')).status,
      429,
      'a wrong password is refused like any locked attempt',
    );
    const c = new DashboardClient(t.url);
    const r = await loginFrom(t, '198.51.100.101', OWNER.password, c);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.mfa_required, true);
    assert.equal((await c.get('/dashboard-api/state')).body.signed_in, false, 'the password alone does not sign in');
    const m = await c.post('/dashboard-api/login/mfa', { code: totp(secret, Date.now() + 30_000) });
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal((await c.get('/dashboard-api/state')).body.signed_in, true);
    assert.deepEqual(await row(t, `acct:${OWNER.email}`), lock, 'going through the lock neither counted nor moved it');
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  test('two users behind the proxy are counted by their own addresses', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await loginFrom(t, '10.1.0.1', `typo-${i}`)).status, 401);
    assert.equal((await loginFrom(t, '10.1.0.1', OWNER.password)).status, 429);
    const other = await loginFrom(t, '10.1.0.2', OWNER.password);
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.equal((await row(t, 'ip:10.1.0.2'))?.failures, 0, 'the right password gave its attempt back');
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  test('X-Forwarded-For from a peer that is not a named proxy is not believed', async () => {
    assert.equal(await loginFromPeer(t, '127.0.0.2', '10.9.9.9', 'wrong-password'), 401);
    assert.equal((await row(t, 'ip:127.0.0.2'))?.failures, 1);
    assert.equal(await row(t, 'ip:10.9.9.9'), undefined);
    await t.db.pool.query('DELETE FROM login_throttle');
  });
});

describe('sign-in throttling without MAILROOM_TRUST_PROXY', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
    assert.equal((await new DashboardClient(t.url).post('/dashboard-api/setup', OWNER)).status, 200);
    await storeCheapPassword(t.db.pool, OWNER.email, OWNER.password);
  });
  after(async () => {
    await t.close();
  });

  test("X-Forwarded-For is not believed: every client of a proxy is the proxy's one address", async () => {
    for (let i = 0; i < 5; i++) assert.equal((await loginFrom(t, '10.1.0.1', `typo-${i}`)).status, 401);
    assert.equal((await loginFrom(t, '10.1.0.2', OWNER.password)).status, 429);
    assert.ok((await row(t, `acct-ip:${OWNER.email}|127.0.0.1`))?.locked_until);
  });
});

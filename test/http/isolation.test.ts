import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resend } from 'resend';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { teamCreate } from '../../src/store/teams.js';
import { sleep } from '../../src/lib/time.js';

describe('tenant isolation', () => {
  let t: TestApp;
  let b: Resend;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
    const team = await teamCreate(t.db.pool, 'Team B');
    b = new Resend((await t.app.apiKeys.create(team.id, { name: 'b' })).token, { baseUrl: t.url });
  });
  after(async () => {
    await t.close();
  });

  test("team B cannot see, verify, update or delete team A's domains, keys or logs", async () => {
    const dom = (await t.resend.domains.create({ name: 'a-only.example.com' })).data!;
    const key = (await t.resend.apiKeys.create({ name: 'a-key' })).data!;
    await sleep(400); // let the request log flush
    assert.equal((await b.domains.get(dom.id)).error!.name, 'not_found');
    assert.equal((await b.domains.verify(dom.id)).error!.name, 'not_found');
    assert.equal((await b.domains.update({ id: dom.id, openTracking: true })).error!.name, 'not_found');
    assert.equal((await b.domains.remove(dom.id)).error!.name, 'not_found');
    assert.deepEqual((await b.domains.list()).data!.data, []);
    assert.equal((await b.apiKeys.remove(key.id)).error!.name, 'not_found');
    assert.ok(!(await b.apiKeys.list()).data!.data.some((k) => k.id === key.id));
    const aLogs = (await t.resend.logs.list()).data!.data;
    assert.ok(aLogs.length > 0);
    assert.equal((await b.logs.get(aLogs[0].id)).error!.name, 'not_found');
    assert.ok(!(await b.logs.list()).data!.data.some((l) => aLogs.some((x) => x.id === l.id)));
    // A cursor from another team is not a cursor here.
    assert.equal((await b.domains.list({ limit: 1, after: dom.id })).error!.name, 'validation_error');
    // B cannot bind a key to A's domain.
    assert.equal(
      (await b.apiKeys.create({ name: 'x', permission: 'sending_access', domain_id: dom.id })).error!.name,
      'not_found',
    );
    // A's domain is still there, untouched.
    assert.equal((await t.resend.domains.get(dom.id)).data!.open_tracking, false);
  });

  test('a domain name registered by team A cannot be added by team B', async () => {
    await t.resend.domains.create({ name: 'taken.example.com' });
    const { error } = await b.domains.create({ name: 'taken.example.com' });
    assert.equal(error!.statusCode, 403);
  });
});

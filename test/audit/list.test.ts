// GET /audit-log: a team sees only its own entries, filtered and paged, and impossible dates are
// refused; the route is in the OpenAPI document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, otherTeamClient, type TestApp } from '../helpers/harness.js';

describe('GET /audit-log', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test("a team sees only its own entries; another team's entry ids are unknown cursors", async () => {
    const other = await otherTeamClient(t, 'other team');
    const mine = await t.resend.apiKeys.create({ name: 'mine' });
    const theirs = await other.apiKeys.create({ name: 'theirs' });
    const mineLog = await t.api('GET', '/audit-log?limit=100');
    assert.equal(mineLog.status, 200);
    assert.equal(mineLog.body.object, 'list');
    const targets = mineLog.body.data.map((e: { target: { id: string } }) => e.target.id);
    assert.ok(targets.includes(mine.data!.id));
    assert.ok(!targets.includes(theirs.data!.id));
    const theirEntry = (await t.db.pool.query(`SELECT id FROM audit_log WHERE target_id = $1`, [theirs.data!.id]))
      .rows[0];
    const cursor = await t.api('GET', `/audit-log?after=${theirEntry.id}`);
    assert.equal(cursor.status, 422);
    const byTarget = await t.api('GET', `/audit-log?target_kind=api_key&target_id=${theirs.data!.id}`);
    assert.deepEqual(byTarget.body.data, []);
  });

  test('filters by action (or family), actor, target and time, and pages with after', async () => {
    const k = await t.resend.apiKeys.create({ name: 'paged' });
    await t.api('PATCH', `/api-keys/${k.data!.id}`, { body: { name: 'paged 2' } });
    await t.resend.apiKeys.remove(k.data!.id);
    const revoked = await t.api('GET', '/audit-log?action=api_key.revoked');
    assert.equal(revoked.body.data.length, 1);
    assert.equal(revoked.body.data[0].target.id, k.data!.id);
    assert.deepEqual(revoked.body.data[0].summary, { before: { name: 'paged 2', permission: 'full_access' } });
    const family = await t.api('GET', `/audit-log?action=api_key.*&target_id=${k.data!.id}`);
    assert.deepEqual(
      family.body.data.map((e: { action: string }) => e.action),
      ['api_key.revoked', 'api_key.updated', 'api_key.created'],
    );
    const actorId = family.body.data[0].actor.id;
    assert.equal(family.body.data[0].actor.kind, 'api_key');
    const byActor = await t.api('GET', `/audit-log?actor=${actorId}&limit=100`);
    assert.ok(byActor.body.data.every((e: { actor: { id: string } }) => e.actor.id === actorId));
    const byName = await t.api('GET', '/audit-log?actor=Bootstrap&limit=100');
    assert.deepEqual(
      byName.body.data.map((e: { id: string }) => e.id),
      byActor.body.data.map((e: { id: string }) => e.id),
    );
    const p1 = await t.api('GET', `/audit-log?limit=2&target_id=${k.data!.id}`);
    assert.equal(p1.body.has_more, true);
    const p2 = await t.api('GET', `/audit-log?limit=2&target_id=${k.data!.id}&after=${p1.body.data[1].id}`);
    assert.equal(p2.body.has_more, false);
    assert.equal(p2.body.data[0].action, 'api_key.created');
    const future = await t.api('GET', '/audit-log?since=2999-01-01');
    assert.deepEqual(future.body.data, []);
    const past = await t.api('GET', '/audit-log?until=2000-01-01T00:00:00Z');
    assert.deepEqual(past.body.data, []);
    const now = await t.api('GET', `/audit-log?since=2000-01-01&until=2999-12-31T23:59:59Z&action=api_key.revoked`);
    assert.equal(now.body.data.length, 1);
  });

  test('impossible dates and unknown names are 422 with the field named', async () => {
    for (const [q, field] of [
      ['since=2026-02-30', 'since'],
      ['until=2026-13-01', 'until'],
      ['since=0000-01-01', 'since'],
      ['since=yesterday', 'since'],
      ['since=2026-02-01&until=2026-01-01', 'until'],
      ['action=api_key.exploded', 'action'],
      ['actor_kind=robot', 'actor_kind'],
      ['target_kind=planet', 'target_kind'],
    ]) {
      const r = await t.api('GET', `/audit-log?${q}`);
      assert.equal(r.status, 422, q);
      assert.match(r.body.message, new RegExp(`\`${field}\``), q);
    }
  });

  test('is documented in /openapi.json with its filters', async () => {
    const doc = (await t.api('GET', '/openapi.json', { key: null })).body;
    const op = doc.paths['/audit-log']?.get;
    assert.ok(op, 'GET /audit-log is in the document');
    assert.deepEqual(op.tags, ['Audit log']);
    const names = op.parameters.map((p: { name: string }) => p.name);
    for (const n of ['limit', 'after', 'actor', 'action', 'target_kind', 'target_id', 'since', 'until'])
      assert.ok(names.includes(n), n);
  });

  test('a sending_access key may not read it', async () => {
    const k = await t.resend.apiKeys.create({ name: 'sender', permission: 'sending_access' });
    const r = await t.api('GET', '/audit-log', { key: k.data!.token });
    assert.equal(r.status, 401);
    assert.equal(r.body.name, 'restricted_api_key');
  });
});

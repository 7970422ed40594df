import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';

describe('segments (and the legacy audiences) through the resend SDK', () => {
  let t: TestApp;
  let vip: string;
  let beta: string;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('create, get, list, rename and delete; a malformed filter is refused by name', async () => {
    const created = await t.resend.segments.create({ name: 'VIP' });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!).sort(), ['id', 'name', 'object']);
    vip = created.data!.id;
    beta = (await t.resend.segments.create({ name: 'Beta testers' })).data!.id;
    const got = await t.resend.segments.get(vip);
    assert.deepEqual([got.data!.object, got.data!.name], ['segment', 'VIP']);
    assert.deepEqual((await t.resend.segments.list()).data!.data.map((s) => s.name).sort(), ['Beta testers', 'VIP']);
    assert.equal((await t.resend.segments.update(beta, { name: 'Beta' } as never)).error, null);
    assert.equal((await t.resend.segments.get(beta)).data!.name, 'Beta');
    const filtered = await t.api('POST', '/segments', { body: { name: 'Active', filter: { opened_within_days: 30 } } });
    assert.equal(filtered.status, 422);
    assert.match(filtered.body.message, /`filter`/);
    const tmp = (await t.resend.segments.create({ name: 'tmp' })).data!.id;
    assert.deepEqual((await t.resend.segments.remove(tmp)).data, { object: 'segment', id: tmp, deleted: true });
    assert.equal((await t.resend.segments.get(tmp)).error?.name, 'not_found');
    const other = await otherTeamClient(t, 'Others');
    assert.equal((await other.segments.get(vip)).error?.name, 'not_found');
  });

  test('contacts join segments on create and through contacts.segments; lists by segment', async () => {
    const ann = (await t.resend.contacts.create({ email: 'ann@example.org', segments: [{ id: vip }] } as never)).data!
      .id;
    const bob = (await t.resend.contacts.create({ email: 'bob@example.org' })).data!.id;
    await t.resend.contacts.create({ email: 'cy@example.org' });
    const unknown = await t.resend.contacts.create({
      email: 'dee@example.org',
      segments: [{ id: '00000000-0000-4000-8000-000000000000' }],
    } as never);
    assert.equal(unknown.error?.name, 'validation_error');
    const added = await t.resend.contacts.segments.add({ contactId: bob, segmentId: vip });
    assert.equal(added.error, null, JSON.stringify(added.error));
    await t.resend.contacts.segments.add({ email: 'bob@example.org', segmentId: beta });
    const bobs = await t.resend.contacts.segments.list({ contactId: bob });
    assert.deepEqual(
      bobs.data!.data.map((s) => s.name),
      ['VIP', 'Beta'],
    );
    const members = await t.resend.contacts.list({ segmentId: vip });
    assert.equal(members.error, null, JSON.stringify(members.error));
    assert.deepEqual(members.data!.data.map((c) => c.email).sort(), ['ann@example.org', 'bob@example.org']);
    assert.deepEqual(
      (await t.api('GET', `/contacts?segment_id=${beta}`)).body.data.map((c: any) => c.email),
      ['bob@example.org'],
    );
    const removed = await t.resend.contacts.segments.remove({ contactId: bob, segmentId: vip });
    assert.equal(removed.error, null, JSON.stringify(removed.error));
    assert.deepEqual(
      (await t.resend.contacts.list({ segmentId: vip })).data!.data.map((c) => c.id),
      [ann],
    );
    assert.equal(
      (await t.resend.contacts.segments.remove({ contactId: bob, segmentId: vip })).error?.name,
      'not_found',
    );
    const patch = await t.api('PATCH', `/contacts/${ann}`, { body: { segments: [{ id: beta }] } });
    assert.equal(patch.status, 422);
    assert.match(patch.body.message, /`segments`/);
  });

  test('the legacy audience routes work on the same rows', async () => {
    const aud = await t.api('POST', '/audiences', { body: { name: 'Legacy list' } });
    assert.equal(aud.status, 201);
    assert.equal(aud.body.object, 'audience');
    const aid = aud.body.id;
    const made = await t.resend.contacts.create({ audienceId: aid, email: 'eve@example.org' } as never);
    assert.equal(made.error, null, JSON.stringify(made.error));
    const existing = await t.resend.contacts.create({ audienceId: aid, email: 'ann@example.org' } as never);
    assert.equal(existing.error, null);
    const list = await t.resend.contacts.list({ audienceId: aid } as never);
    assert.deepEqual((list.data as any).data.map((c: any) => c.email).sort(), ['ann@example.org', 'eve@example.org']);
    const one = await t.resend.contacts.get({ audienceId: aid, email: 'eve@example.org' } as never);
    assert.equal((one.data as any).email, 'eve@example.org');
    const outsider = await t.api('GET', `/audiences/${aid}/contacts/cy@example.org`);
    assert.equal(outsider.status, 404, 'not in that audience');
    assert.equal((await t.api('GET', `/segments/${aid}`)).body.name, 'Legacy list');
    assert.equal(
      (await t.api('GET', '/audiences/00000000-0000-4000-8000-000000000000/contacts')).body.message,
      'Audience not found',
    );
  });
});

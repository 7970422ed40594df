// The SDK methods no other test calls by name, each through the real `resend` SDK unchanged:
// its older names (emails.create, batch.create, audiences.*: the same requests as emails.send,
// batch.send and segments.*), emails.metrics with dimensions, and suppressions.batch.add/remove.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { until } from '../../helpers/until.js';

describe('SDK methods by their other names, metrics and suppression batches', () => {
  let t: CaptureApp;
  before(async () => {
    t = await startCaptureApp();
  });
  after(async () => {
    await t.close();
  });

  test('emails.create and batch.create send like emails.send and batch.send', async () => {
    const one = await t.resend.emails.create({
      from: 'hello@example.com',
      to: 'a@dest.test',
      subject: 'One',
      text: 'x',
    });
    assert.equal(one.error, null, JSON.stringify(one.error));
    const many = await t.resend.batch.create([
      { from: 'hello@example.com', to: 'b@dest.test', subject: 'Two', text: 'x' },
      { from: 'hello@example.com', to: 'c@dest.test', subject: 'Three', text: 'x' },
    ]);
    assert.equal(many.error, null, JSON.stringify(many.error));
    assert.equal(many.data!.data.length, 2);
    const got = await t.resend.emails.get(one.data!.id);
    assert.equal(got.data!.subject, 'One');
  });

  test('emails.metrics: totals, and rows per domain', async () => {
    await until(
      'three delivered',
      async () => (await t.api('GET', '/emails?status=delivered')).body.data.length >= 3,
      10_000,
    );
    const totals = await t.resend.emails.metrics({ metrics: ['sent', 'delivered'] });
    assert.equal(totals.error, null, JSON.stringify(totals.error));
    assert.equal(totals.data!.object, 'metrics');
    assert.ok((totals.data!.totals.sent ?? 0) >= 3, JSON.stringify(totals.data));
    const byDomain = await t.resend.emails.metrics({ dimensions: ['domain'], metrics: ['delivered'] });
    assert.equal(byDomain.error, null, JSON.stringify(byDomain.error));
    assert.equal(byDomain.data!.data?.[0]?.domain_name, 'example.com', JSON.stringify(byDomain.data));
    const bad = await t.resend.emails.metrics({ metrics: ['nonsense' as never] });
    assert.equal(bad.error?.statusCode, 422);
  });

  test('audiences.* are segments under their old name', async () => {
    const a = await t.resend.audiences.create({ name: 'Old name' });
    assert.equal(a.error, null, JSON.stringify(a.error));
    assert.equal((await t.resend.audiences.get(a.data!.id)).data!.name, 'Old name');
    assert.equal((await t.resend.audiences.update(a.data!.id, { name: 'Renamed' })).error, null);
    assert.equal((await t.resend.segments.get(a.data!.id)).data!.name, 'Renamed');
    assert.ok((await t.resend.audiences.list()).data!.data.some((s) => s.id === a.data!.id));
    assert.equal((await t.resend.segments.get(a.data!.id)).data!.id, a.data!.id);
    assert.equal((await t.resend.audiences.remove(a.data!.id)).error, null);
    assert.equal((await t.resend.audiences.get(a.data!.id)).error?.statusCode, 404);
  });

  test('suppressions.batch.add and remove, by address and by id', async () => {
    const added = await t.resend.suppressions.batch.add({ emails: ['x@dest.test', 'y@dest.test', 'z@dest.test'] });
    assert.equal(added.error, null, JSON.stringify(added.error));
    assert.equal(added.data!.data.length, 3);
    assert.ok(added.data!.data.every((s) => s.object === 'suppression' && s.id));
    const byEmail = await t.resend.suppressions.batch.remove({ emails: ['x@dest.test'] });
    assert.equal(byEmail.error, null, JSON.stringify(byEmail.error));
    assert.deepEqual(
      byEmail.data!.data.map((d) => d.deleted),
      [true],
    );
    const byId = await t.resend.suppressions.batch.remove({ ids: [added.data!.data[1].id] });
    assert.deepEqual(
      byId.data!.data.map((d) => d.deleted),
      [true],
    );
    const left = await t.resend.suppressions.list();
    assert.deepEqual(
      left.data!.data.map((s) => s.email),
      ['z@dest.test'],
    );
  });
});

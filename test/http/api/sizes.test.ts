// Sizes everywhere (issue 30): GET /segments?counts=true counts fixed lists and filter segments;
// GET /broadcasts/audience?segment_id=&topic_id= counts a composer's choice by the review step's
// rules (the same numbers as /broadcasts/:id/audience); GET /broadcasts carries each broadcast's
// sent/delivered/opened/clicked/unsubscribed/complained counters with ?stats=true (distinct emails, kept by the
// email_events trigger of 0065). Bad parameters are 422, other teams' ids 404.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Resend } from 'resend';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { otherTeamClient } from '../../helpers/harness.js';
import { until } from '../../helpers/until.js';

describe('segment sizes, composer audience sizes and broadcast rates', { timeout: 120_000 }, () => {
  let t: CaptureApp;
  let other: Resend;
  let fixed: string;
  let rule: string;
  let topic: string;
  before(async () => {
    t = await startCaptureApp({ broadcastPauseMinSample: 1_000_000 });
    other = await otherTeamClient(t, 'Other team');
    fixed = (await t.resend.segments.create({ name: 'Fixed' })).data!.id;
    topic = (await t.resend.topics.create({ name: 'Deals', defaultSubscription: 'opt_in' })).data!.id;
    for (let i = 0; i < 5; i++)
      await t.resend.contacts.create({
        email: `p${i}@dest.test`,
        segments: [{ id: fixed }],
        unsubscribed: i === 4,
        topics: i === 3 ? [{ id: topic, subscription: 'opt_out' }] : undefined,
      } as never);
    rule = (
      await t.api('POST', '/segments', {
        body: { name: 'Rule', filter: { field: 'email', op: 'starts_with', value: 'p1' } },
      })
    ).body.id;
  });
  after(() => t?.close());

  test('the segment list carries member counts for fixed and filter segments when asked', async () => {
    const r = await t.api('GET', '/segments?counts=true');
    const counts = Object.fromEntries(
      r.body.data.map((s: { id: string; contacts_count: number }) => [s.id, s.contacts_count]),
    );
    assert.deepEqual(counts, { [fixed]: 5, [rule]: 1 });
    // without the parameter: Resend's shape as before
    assert.equal((await t.api('GET', '/segments')).body.data[0].contacts_count, undefined);
    const sdk = await t.resend.segments.list();
    assert.equal(sdk.error, null);
    const bad = await t.api('GET', '/segments?counts=yes');
    assert.deepEqual([bad.status, bad.body.name], [422, 'validation_error']);
  });

  test('the composer audience changes with the topic, by the same rules as a saved draft', async () => {
    const noTopic = await t.api('GET', `/broadcasts/audience?segment_id=${fixed}`);
    assert.equal(noTopic.status, 200, JSON.stringify(noTopic.body));
    assert.deepEqual([noTopic.body.contacts, noTopic.body.recipients, noTopic.body.skipped.unsubscribed], [5, 4, 1]);
    const withTopic = await t.api('GET', `/broadcasts/audience?segment_id=${fixed}&topic_id=${topic}`);
    assert.deepEqual([withTopic.body.recipients, withTopic.body.skipped.topic], [3, 1]);
    const draft = await t.resend.broadcasts.create({
      segmentId: fixed,
      topicId: topic,
      from: 'News <news@example.com>',
      subject: 's',
      html: '<p>h</p>',
    } as never);
    const saved = await t.api('GET', `/broadcasts/${draft.data!.id}/audience`);
    assert.deepEqual({ ...saved.body, broadcast_id: null }, { ...withTopic.body, broadcast_id: null });
    for (const q of ['segment_id=nope', `segment_id=${fixed}&topic_id=nope`]) {
      const r = await t.api('GET', `/broadcasts/audience?${q}`);
      assert.deepEqual([r.status, r.body.name], [422, 'validation_error'], q);
    }
    const theirKey = (await other.apiKeys.create({ name: 'k' })).data!.token;
    assert.equal((await t.api('GET', `/broadcasts/audience?segment_id=${fixed}`, { key: theirKey })).status, 404);
    assert.equal((await t.api('GET', `/broadcasts/audience?segment_id=${fixed}&topic_id=${topic}`)).status, 200);
  });

  test('the broadcast list shows sent, delivered, opened, clicked, unsubscribed and complained per broadcast', async () => {
    const b = await t.resend.broadcasts.create({
      segmentId: fixed,
      from: 'News <news@example.com>',
      subject: 'Rates',
      html: '<p>h</p>',
      send: true,
    } as never);
    assert.equal(b.error, null, JSON.stringify(b.error));
    const id = b.data!.id;
    const emails = await until('the broadcast delivered', async () => {
      const r = await t.api('GET', `/emails?broadcast_id=${id}&limit=100`);
      const list = r.body.data as { id: string; last_event: string }[];
      return list.length === 4 && list.every((e) => e.last_event === 'delivered') && list;
    });
    const [a, c] = emails;
    const team = (await t.db.pool.query('SELECT team_id FROM broadcasts WHERE id = $1', [id])).rows[0].team_id;
    const ev = (emailId: string, type: string) =>
      t.db.pool.query(
        'INSERT INTO email_events (id, email_id, team_id, type, recipient, data) VALUES (gen_random_uuid(), $1, $2, $3, NULL, $4)',
        [emailId, team, type, '{}'],
      );
    await ev(a.id, 'email.opened');
    await ev(c.id, 'email.opened');
    await ev(a.id, 'email.clicked');
    await ev(a.id, 'email.clicked'); // a second click of the same email counts once
    await ev(c.id, 'email.unsubscribed');
    await ev(c.id, 'email.complained');
    const listed = (await t.api('GET', '/broadcasts?stats=true')).body.data.find((x: { id: string }) => x.id === id);
    assert.deepEqual(listed.stats, {
      sent: 4,
      delivered: 4,
      opened: 2,
      clicked: 1,
      unsubscribed: 1,
      complained: 1,
      bounced: 0,
    });
    // the same numbers as the broadcast's own stats (counted from its events)
    const one = (await t.api('GET', `/broadcasts/${id}`)).body.stats;
    assert.deepEqual([one.delivered, one.opened, one.clicked, one.unsubscribed, one.complained], [4, 2, 1, 1, 1]);
    // without the parameter: Resend's shape, as the SDK lists it
    const sdk = await t.resend.broadcasts.list();
    assert.equal(sdk.error, null);
    assert.equal((sdk.data!.data.find((x) => x.id === id) as unknown as { stats?: unknown }).stats, undefined);
    const bad = await t.api('GET', '/broadcasts?stats=1');
    assert.deepEqual([bad.status, bad.body.name], [422, 'validation_error']);
    assert.equal((await other.broadcasts.list()).data!.data.length, 0);
  });
});

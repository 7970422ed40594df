import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Resend } from 'resend';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';

const UNKNOWN = '1b4e28ba-2fa1-11d2-883f-0016d3cca427';

describe('listing the contacts of one segment or audience', () => {
  let t: TestApp;
  let other: Resend;
  let seg: string;
  let aud: string;
  const members: string[] = [];
  before(async () => {
    t = await startTestApp();
    other = await otherTeamClient(t, 'Other team');
    seg = (await t.resend.segments.create({ name: 'Members' })).data!.id;
    aud = (await t.api('POST', '/audiences', { body: { name: 'Legacy' } })).body.id;
    // Members and outsiders interleaved, so a page that ignored the filter would show an outsider.
    for (let i = 0; i < 5; i++) {
      members.push(
        (await t.resend.contacts.create({ email: `m${i}@example.org`, segments: [{ id: seg }] } as never)).data!.id,
      );
      await t.resend.contacts.create({ email: `o${i}@example.org` });
    }
    await t.resend.contacts.create({ audienceId: aud, email: 'a0@example.org' } as never);
  });
  after(async () => {
    await t.close();
  });

  const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((c) => c.id);

  test("?audience_id= and ?segment_id= list only that segment, the same as the SDK's segmentId and audienceId", async () => {
    const newestFirst = [...members].reverse();
    const viaSdk = await t.resend.contacts.list({ segmentId: seg });
    assert.equal(viaSdk.error, null, JSON.stringify(viaSdk.error));
    assert.deepEqual(
      viaSdk.data!.data.map((c) => c.id),
      newestFirst,
    );
    assert.deepEqual(
      (await t.resend.contacts.list({ audienceId: seg })).data!.data.map((c) => c.id),
      newestFirst,
    );
    assert.deepEqual(ids(await t.api('GET', `/contacts?segment_id=${seg}`)), newestFirst);
    assert.deepEqual(ids(await t.api('GET', `/contacts?audience_id=${seg}`)), newestFirst);
    assert.deepEqual(
      (await t.api('GET', `/contacts?audience_id=${aud}`)).body.data.map((c: { email: string }) => c.email),
      ['a0@example.org'],
    );
  });

  test('pagination with limit, after and before stays inside the filter', async () => {
    const newestFirst = [...members].reverse();
    const p1 = await t.api('GET', `/contacts?audience_id=${seg}&limit=2`);
    assert.deepEqual([p1.body.has_more, ids(p1)], [true, newestFirst.slice(0, 2)]);
    const p2 = await t.api('GET', `/contacts?audience_id=${seg}&limit=2&after=${newestFirst[1]}`);
    assert.deepEqual([p2.body.has_more, ids(p2)], [true, newestFirst.slice(2, 4)]);
    const p3 = await t.api('GET', `/contacts?audience_id=${seg}&limit=2&after=${newestFirst[3]}`);
    assert.deepEqual([p3.body.has_more, ids(p3)], [false, newestFirst.slice(4)]);
    const back = await t.api('GET', `/contacts?audience_id=${seg}&limit=2&before=${newestFirst[3]}`);
    assert.deepEqual(ids(back), newestFirst.slice(1, 3));
    const sdkPage = await t.resend.contacts.list({ audienceId: seg, limit: 2, after: newestFirst[1] });
    assert.deepEqual(
      sdkPage.data!.data.map((c) => c.id),
      newestFirst.slice(2, 4),
    );
  });

  test("an unknown id, or another team's, is 404 with the name the caller used", async () => {
    const unknownAudience = await t.api('GET', `/contacts?audience_id=${UNKNOWN}`);
    assert.deepEqual(
      [unknownAudience.status, unknownAudience.body.name, unknownAudience.body.message],
      [404, 'not_found', 'Audience not found'],
    );
    const unknownSegment = await t.api('GET', `/contacts?segment_id=${UNKNOWN}`);
    assert.deepEqual([unknownSegment.status, unknownSegment.body.message], [404, 'Segment not found']);
    const theirs = await other.contacts.list({ audienceId: seg });
    assert.equal(theirs.error?.name, 'not_found');
    const theirsRaw = await t.api('GET', `/contacts?audience_id=${seg}`, {
      key: (await other.apiKeys.create({ name: 'k' })).data!.token,
    });
    assert.equal(theirsRaw.status, 404);
  });

  test('naming two different segments at once is refused rather than guessed', async () => {
    const r = await t.api('GET', `/contacts?segment_id=${seg}&audience_id=${aud}`);
    assert.deepEqual([r.status, r.body.name], [422, 'validation_error']);
    assert.match(r.body.message, /`segment_id`.*`audience_id`/);
    assert.deepEqual(ids(await t.api('GET', `/contacts?segment_id=${seg}&audience_id=${seg}`)), [...members].reverse());
  });
});

// Impossible dates in filter rules (issue 24): refused at the edge with a 422 naming the rule, as
// PostgreSQL would read them; and a segment an older version stored with one fails alone, clearly,
// instead of answering 500 to every read of the team and leaving its broadcast queued forever.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { uuid } from '../../../src/lib/ids.js';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { until } from '../../helpers/until.js';

const IMPOSSIBLE = ['2026-02-31', '0000-01-01', '2026-01-01T00:00:00-23:59'];

describe('impossible dates in filter rules cannot poison the team', () => {
  let t: CaptureApp;
  let recent: string; // a filter segment with a fine date
  let fixed: string; // a segment of members
  let ann: string;

  before(async () => {
    t = await startCaptureApp();
    ann = (await t.resend.contacts.create({ email: 'ann@dest.test' })).data!.id;
    await t.resend.contacts.create({ email: 'bob@dest.test' });
    recent = (
      await t.api('POST', '/segments', {
        body: { name: 'Recent', filter: { field: 'created_at', op: 'gt', value: '2020-01-01' } },
      })
    ).body.id;
    fixed = (await t.resend.segments.create({ name: 'Fixed' })).data!.id;
    assert.equal((await t.api('POST', `/contacts/${ann}/segments/${fixed}`)).status, 200);
  });
  after(async () => {
    await t.close();
  });

  test('preview, create and update refuse an impossible date with a 422 naming the rule', async () => {
    const before = (await t.api('GET', '/segments')).body.data.length;
    for (const value of IMPOSSIBLE) {
      const leaf = { field: 'created_at', op: 'gt', value };
      const nested = { and: [{ field: 'email', op: 'exists' }, { not: { field: 'created_at', op: 'lte', value } }] };
      for (const [method, path, body, field] of [
        ['POST', '/segments/preview', { filter: leaf }, /`filter\.value`/],
        ['POST', '/segments/preview', { filter: nested }, /`filter\.and\[1\]\.not\.value`/],
        ['POST', '/segments', { name: 'Bad', filter: leaf }, /`filter\.value`/],
        ['PATCH', `/segments/${recent}`, { filter: nested }, /`filter\.and\[1\]\.not\.value`/],
      ] as const) {
        const r = await t.api(method, path, { body });
        assert.equal(r.status, 422, `${method} ${path} ${value}: ${JSON.stringify(r.body)}`);
        assert.equal(r.body.name, 'validation_error');
        assert.match(r.body.message, field);
      }
    }
    assert.equal((await t.api('GET', '/segments')).body.data.length, before, 'nothing was created');
    assert.deepEqual(
      (await t.api('GET', `/segments/${recent}`)).body.filter,
      { field: 'created_at', op: 'gt', value: '2020-01-01T00:00:00Z' },
      'nothing was changed',
    );
    const fine = await t.api('POST', '/segments/preview', {
      body: { filter: { field: 'created_at', op: 'gt', value: '2024-02-29T23:59:59+15:59' } },
    });
    assert.equal(fine.status, 200, JSON.stringify(fine.body));
  });

  test('a segment stored with an impossible date by an older version is readable, fails alone and clearly, and does not break the team', async () => {
    const teamId = (await t.db.pool.query<{ team_id: string }>('SELECT team_id FROM segments WHERE id = $1', [recent]))
      .rows[0].team_id;
    const bad = uuid();
    const filter = {
      and: [
        { field: 'email', op: 'exists' },
        { field: 'created_at', op: 'gt', value: '2026-02-31T00:00:00Z' },
      ],
    };
    await t.db.pool.query('INSERT INTO segments (id, team_id, name, filter) VALUES ($1, $2, $3, $4)', [
      bad,
      teamId,
      'Old bad',
      JSON.stringify(filter),
    ]);

    const got = await t.api('GET', `/segments/${bad}`);
    assert.equal(got.status, 200, JSON.stringify(got.body));
    assert.deepEqual([got.body.id, got.body.filter, got.body.contacts_count], [bad, filter, null]);
    assert.match(got.body.filter_error, /`filter\.and\[1\]\.value`.*2026-02-31/);

    for (const path of [
      `/segments/${bad}/contacts`,
      `/contacts?segment_id=${bad}`,
      `/audiences/${bad}/contacts/${ann}`,
    ]) {
      const r = await t.api('GET', path);
      assert.equal(r.status, 422, `${path}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.name, 'validation_error');
      assert.match(r.body.message, /filter cannot be evaluated.*`filter\.and\[1\]\.value`.*PATCH \/segments/);
    }

    // The rest of the team is unharmed.
    const mine = await t.api('GET', `/contacts/${ann}/segments`);
    assert.equal(mine.status, 200, JSON.stringify(mine.body));
    assert.deepEqual(mine.body.data.map((s: { id: string }) => s.id).sort(), [recent, fixed].sort());
    const other = await t.api('GET', `/segments/${recent}`);
    assert.deepEqual([other.status, other.body.contacts_count, other.body.filter_error], [200, 2, undefined]);
    assert.equal((await t.api('GET', `/segments/${recent}/contacts`)).body.data.length, 2);
    assert.equal((await t.api('GET', '/segments')).status, 200);

    // A broadcast to it stops with the reason shown instead of staying queued.
    const b = await t.resend.broadcasts.create({
      segmentId: bad,
      from: 'Acme <hello@example.com>',
      subject: 'Hi',
      text: 'hi',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    const stopped = await until(
      'the broadcast to stop',
      async () => {
        const r = (await t.api('GET', `/broadcasts/${b.data!.id}`)).body;
        return r.status === 'paused' ? r : undefined;
      },
      20_000,
    );
    assert.match(stopped.pause_reason, /filter cannot be evaluated.*2026-02-31/);
    assert.equal((await t.db.pool.query('SELECT 1 FROM emails WHERE broadcast_id = $1', [b.data!.id])).rowCount, 0);

    // Fixing the filter heals it.
    const fix = await t.api('PATCH', `/segments/${bad}`, {
      body: { filter: { field: 'created_at', op: 'gt', value: '9999-02-28' } },
    });
    assert.equal(fix.status, 200, JSON.stringify(fix.body));
    const healed = await t.api('GET', `/segments/${bad}`);
    assert.deepEqual([healed.body.contacts_count, healed.body.filter_error], [0, undefined]);
  });

  test('list filters refuse dates PostgreSQL cannot store with a 422 naming the parameter', async () => {
    for (const [path, field] of [
      ['/emails?start_date=-271821-04-20T00:00:00Z', /`start_date`/],
      ['/emails?end_date=2026-02-31', /`end_date`/],
      ['/emails/count?start_date=0000-01-01', /`start_date`/],
    ] as const) {
      const r = await t.api('GET', path);
      assert.equal(r.status, 422, `${path}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.message, field);
    }
    assert.equal((await t.api('GET', '/emails?start_date=2026-01-01&end_date=2026-02-28T23:59:59Z')).status, 200);
  });
});

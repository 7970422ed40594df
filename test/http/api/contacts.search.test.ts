// Mailroom's contact-finding extensions (issue 30): GET /contacts with search, filter, ids and
// properties; GET /contacts/count; GET /contacts/export (CSV, formula cells neutralised); POST
// /contacts/bulk (inline and as a job) with contact.updated / contact.deleted events as the
// single operations record them; 422s in Resend's shape at the edge; other teams see nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Resend } from 'resend';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';
import { until } from '../../helpers/until.js';
import { contactBulkJob } from '../../../src/contacts/bulk.job.js';
import { bulkFind, bulkInsert } from '../../../src/store/contact-bulk.js';
import { createLogger } from '../../../src/lib/log.js';

describe('finding contacts and changing many at once', { timeout: 120_000 }, () => {
  let t: TestApp;
  let other: Resend;
  let teamId: string;
  let vip: string; // a fixed segment
  let news: string; // an opt_in topic
  const ada: { id: string } = { id: '' };
  before(async () => {
    t = await startTestApp();
    other = await otherTeamClient(t, 'Other team');
    await t.resend.contactProperties.create({ key: 'plan', type: 'string' } as never);
    vip = (await t.resend.segments.create({ name: 'VIP' })).data!.id;
    news = (await t.api('POST', '/topics', { body: { name: 'News', default_subscription: 'opt_in' } })).body.id;
    ada.id = (
      await t.resend.contacts.create({
        email: 'ada.lovelace@analytical.example',
        firstName: 'Ada',
        lastName: 'Lovelace',
        properties: { plan: 'pro' },
      } as never)
    ).data!.id;
    await t.resend.contacts.create({
      email: 'grace@navy.example',
      firstName: 'Grace',
      lastName: 'Hopper',
      properties: { plan: '=HYPERLINK("x")' },
    } as never);
    await t.resend.contacts.create({ email: 'alan@bletchley.example', firstName: 'Alan', unsubscribed: true } as never);
    await other.contacts.create({ email: 'ada@other-team.example', firstName: 'Ada' });
    teamId = (await t.db.pool.query('SELECT team_id FROM contacts WHERE id = $1', [ada.id])).rows[0].team_id;
  });
  after(async () => {
    await t.close();
  });

  const emails = (r: { body: { data: { email: string }[] } }) => r.body.data.map((c) => c.email).sort();
  const q = (o: Record<string, string>) => `?${new URLSearchParams(o)}`;

  test('search finds a contact by part of its address or its name, case-insensitively, only in the team', async () => {
    assert.deepEqual(emails(await t.api('GET', `/contacts${q({ search: 'LOVELACE@anal' })}`)), [
      'ada.lovelace@analytical.example',
    ]);
    assert.deepEqual(emails(await t.api('GET', `/contacts${q({ search: 'grace hopper' })}`)), ['grace@navy.example']);
    assert.deepEqual(emails(await t.api('GET', `/contacts${q({ search: 'ada' })}`)), [
      'ada.lovelace@analytical.example',
    ]);
    // LIKE's own characters are literal
    assert.deepEqual(emails(await t.api('GET', `/contacts${q({ search: '%' })}`)), []);
    assert.deepEqual(emails(await t.api('GET', `/contacts${q({ search: 'a_a' })}`)), []);
    // the other team's Ada is theirs alone, and ours is not theirs
    const theirs = await t.api('GET', `/contacts${q({ search: 'ada' })}`, {
      key: (await other.apiKeys.create({ name: 'k' })).data!.token,
    });
    assert.deepEqual(emails(theirs), ['ada@other-team.example']);
  });

  test('filter by property, subscription, topic and segment; count; chosen property columns', async () => {
    const f = (rule: unknown) => q({ filter: JSON.stringify(rule) });
    assert.deepEqual(
      emails(await t.api('GET', `/contacts${f({ field: 'properties.plan', op: 'eq', value: 'pro' })}`)),
      ['ada.lovelace@analytical.example'],
    );
    assert.deepEqual(emails(await t.api('GET', `/contacts${f({ field: 'unsubscribed', op: 'eq', value: true })}`)), [
      'alan@bletchley.example',
    ]);
    const count = await t.api('GET', `/contacts/count${f({ field: 'unsubscribed', op: 'eq', value: false })}`);
    assert.deepEqual(count.body, { object: 'contact_count', count: 2, capped: false });
    assert.deepEqual((await t.api('GET', '/contacts/count')).body.count, 3);
    const withCols = await t.api('GET', `/contacts${q({ search: 'ada', properties: 'plan' })}`);
    assert.deepEqual(withCols.body.data[0].properties, { plan: 'pro' });
    // the SDK's list still works (no search parameters: Resend's own list)
    const sdk = await t.resend.contacts.list();
    assert.equal(sdk.data!.data.length, 3);
    // topic: everyone is in an opt_in topic until they opt out
    await t.api('PATCH', `/contacts/${ada.id}/topics`, { body: [{ id: news, subscription: 'opt_out' }] });
    assert.deepEqual((await t.api('GET', `/contacts/count${f({ topic: news, subscribed: true })}`)).body.count, 2);
    await t.resend.contacts.segments.add({ contactId: ada.id, segmentId: vip } as never);
    assert.deepEqual(emails(await t.api('GET', `/contacts${q({ segment_id: vip, search: 'ada' })}`)), [
      'ada.lovelace@analytical.example',
    ]);
    assert.deepEqual(emails(await t.api('GET', `/contacts${q({ segment_id: vip, search: 'grace' })}`)), []);
  });

  test('bad parameters are 422 validation_error in Resend shape, unknown segments 404', async () => {
    for (const [path, pattern] of [
      [`/contacts${q({ filter: '{not json' })}`, /`filter`/],
      [`/contacts${q({ filter: JSON.stringify({ field: 'shoe_size', op: 'eq', value: 1 }) })}`, /filter\.field/],
      [`/contacts/count${q({ filter: JSON.stringify({ field: 'properties.nope', op: 'eq', value: 'x' }) })}`, /nope/],
      [`/contacts${q({ search: 'x'.repeat(201) })}`, /`search`/],
      [`/contacts${q({ ids: 'not-an-id' })}`, /`ids`/],
      [`/contacts${q({ properties: 'nope' })}`, /`properties`/],
      [`/contacts/export${q({ ids: Array.from({ length: 201 }, () => ada.id).join(',') })}`, /`ids`/],
    ] as const) {
      const r = await t.api('GET', path);
      assert.equal(r.status, 422, `${path}: ${JSON.stringify(r.body)}`);
      assert.deepEqual(Object.keys(r.body).sort(), ['message', 'name', 'statusCode']);
      assert.equal(r.body.name, 'validation_error');
      assert.match(r.body.message, pattern);
    }
    const r = await t.api('GET', `/contacts/count${q({ segment_id: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' })}`);
    assert.deepEqual([r.status, r.body.message], [404, 'Segment not found']);
    for (const body of [
      { action: 'explode', contacts: [ada.id] },
      { action: 'unsubscribe' },
      { action: 'unsubscribe', contacts: [ada.id], match: {} },
      { action: 'unsubscribe', contacts: [] },
      { action: 'unsubscribe', match: { serach: 'typo' } },
      { action: 'add_to_segment', contacts: [ada.id] },
      { action: 'set_topic', contacts: [ada.id], topic_id: news, subscription: 'maybe' },
    ]) {
      const b = await t.api('POST', '/contacts/bulk', { body });
      assert.equal(b.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(b.body)}`);
      assert.equal(b.body.name, 'validation_error');
    }
    // another team's segment is not found; our contact ids do nothing for them
    const theirKey = (await other.apiKeys.create({ name: 'k2' })).data!.token;
    const x = await t.api('POST', '/contacts/bulk', {
      key: theirKey,
      body: { action: 'add_to_segment', contacts: [ada.id], segment_id: vip },
    });
    assert.equal(x.status, 404);
    const y = await t.api('POST', '/contacts/bulk', { key: theirKey, body: { action: 'delete', contacts: [ada.id] } });
    assert.deepEqual([y.status, y.body.matched, y.body.changed], [200, 0, 0]);
    assert.equal((await t.resend.contacts.get({ id: ada.id })).data?.id, ada.id);
  });

  test('export is CSV of the matching contacts with chosen properties and formula cells neutralised', async () => {
    const r = await t.api('GET', `/contacts/export${q({ search: '.example', properties: 'plan' })}`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type')!, /^text\/csv/);
    const lines = (r.body as string).trim().split('\r\n');
    assert.equal(lines[0], 'id,email,first_name,last_name,unsubscribed,created_at,plan');
    assert.equal(lines.length, 4);
    assert.ok(
      lines.some((l) => l.includes(`"'=HYPERLINK(""x"")"`)),
      lines.join('\n'),
    );
    const one = await t.api('GET', `/contacts/export${q({ ids: ada.id })}`);
    assert.equal((one.body as string).trim().split('\r\n').length, 2);
  });

  test('bulk actions on a selection record one event per changed contact', async () => {
    const events = async (type: string) =>
      (
        await t.db.pool.query('SELECT count(*)::int AS n FROM email_events WHERE team_id = $1 AND type = $2', [
          teamId,
          type,
        ])
      ).rows[0].n as number;
    const all = (await t.api('GET', '/contacts?limit=100&search=example')).body.data.map((c: { id: string }) => c.id);
    const before = await events('contact.updated');
    const r = await t.api('POST', '/contacts/bulk', { body: { action: 'unsubscribe', contacts: all } });
    assert.deepEqual(
      [r.status, r.body.object, r.body.status, r.body.matched, r.body.changed],
      [200, 'contact_bulk', 'completed', 3, 2],
    );
    assert.equal(await events('contact.updated'), before + 2);
    const again = await t.api('POST', '/contacts/bulk', { body: { action: 'unsubscribe', contacts: all } });
    assert.equal(again.body.changed, 0);
    const seg = await t.api('POST', '/contacts/bulk', {
      body: { action: 'add_to_segment', match: { search: 'example' }, segment_id: vip },
    });
    assert.deepEqual([seg.body.matched, seg.body.changed], [3, 2]); // Ada was a member already
    assert.equal(
      (await t.resend.segments.get(vip)).data && (await t.api('GET', `/segments/${vip}`)).body.contacts_count,
      3,
    );
    const data = (
      await t.db.pool.query(
        "SELECT data FROM email_events WHERE team_id = $1 AND type = 'contact.updated' ORDER BY created_at DESC, seq DESC LIMIT 1",
        [teamId],
      )
    ).rows[0].data;
    assert.deepEqual(data.segment_ids, [vip]);
    const topic = await t.api('POST', '/contacts/bulk', {
      body: { action: 'set_topic', contacts: all, topic_id: news, subscription: 'opt_out' },
    });
    assert.equal(topic.body.changed, 2); // Ada had opted out already
    const got = await t.api('GET', `/contacts/bulk/${topic.body.id}`);
    assert.deepEqual([got.body.id, got.body.status], [topic.body.id, 'completed']);
    const theirs = await t.api('GET', `/contacts/bulk/${topic.body.id}`, {
      key: (await other.apiKeys.create({ name: 'k3' })).data!.token,
    });
    assert.equal(theirs.status, 404);
  });

  test('a large "all matching" operation is a job, in batches, and deletes record contact.deleted', async () => {
    // 2,500 contacts in one statement (more than the inline maximum)
    await t.db.pool.query(
      `INSERT INTO contacts (id, team_id, email, created_at)
       SELECT gen_random_uuid(), $1, 'bulk' || i || '@many.example', now() - make_interval(secs => i) FROM generate_series(1, 2500) i`,
      [teamId],
    );
    const r = await t.api('POST', '/contacts/bulk', { body: { action: 'delete', match: { search: '@many.' } } });
    assert.deepEqual([r.status, r.body.status, r.body.matched], [202, 'queued', 2500]);
    const done = await until(
      'the bulk delete to complete',
      async () => {
        const g = await t.api('GET', `/contacts/bulk/${r.body.id}`);
        return g.body.status === 'completed' ? g.body : undefined;
      },
      60_000,
    );
    assert.deepEqual([done.processed, done.changed], [2500, 2500]);
    assert.equal((await t.api('GET', '/contacts/count?search=%40many.')).body.count, 0);
    const n = (
      await t.db.pool.query(
        "SELECT count(*)::int AS n FROM email_events WHERE team_id = $1 AND type = 'contact.deleted'",
        [teamId],
      )
    ).rows[0].n;
    assert.equal(n, 2500);
    assert.equal((await t.api('GET', '/contacts/count')).body.count, 3);
  });

  test('a bulk job re-run resumes after its last committed batch', async () => {
    await t.db.pool.query(
      `INSERT INTO contacts (id, team_id, email, created_at)
       SELECT gen_random_uuid(), $1, 'resume' || i || '@again.example', now() - interval '1 day' + make_interval(secs => i) FROM generate_series(1, 1200) i`,
      [teamId],
    );
    // as if a first run had committed the batches up to resume600 and then lost its lease
    const edge = (
      await t.db.pool.query(
        `SELECT created_at::text AS created_at, id FROM contacts WHERE team_id = $1 AND email = 'resume600@again.example'`,
        [teamId],
      )
    ).rows[0];
    const op = await bulkInsert(t.db.pool, teamId, {
      action: 'unsubscribe',
      params: {},
      selection: { match: { search: '@again.example' } },
      status: 'running',
      matched: 1200,
    });
    await t.db.pool.query('UPDATE contact_bulk_operations SET cursor = $2, processed = 600 WHERE id = $1', [
      op.id,
      JSON.stringify(edge),
    ]);
    const log = createLogger('silent');
    await contactBulkJob({ pool: t.db.pool })(
      {
        id: 'j',
        kind: 'contacts.bulk',
        payload: { operation_id: op.id },
        key: null,
        region: null,
        runAt: new Date(),
        attempt: 2,
        maxAttempts: 10,
      } as never,
      { workerId: 'w', log, signal: new AbortController().signal },
    );
    const done = (await bulkFind(t.db.pool, teamId, op.id))!;
    assert.deepEqual([done.status, done.processed, done.changed], ['completed', 1200, 600]);
    const unsub = (
      await t.db.pool.query(
        `SELECT count(*) FILTER (WHERE unsubscribed)::int AS yes, count(*) FILTER (WHERE unsubscribed AND email = 'resume600@again.example')::int AS edge
         FROM contacts WHERE team_id = $1 AND email LIKE '%@again.example'`,
        [teamId],
      )
    ).rows[0];
    assert.deepEqual(unsub, { yes: 600, edge: 0 }); // only those after the cursor
  });
});

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { matches, parseFilter } from '../../../src/contacts/filter.js';
import { segmentContactsCount, segmentRecipientsAfter } from '../../../src/store/segment-contacts.js';
import { sleep } from '../../../src/lib/time.js';
import { until } from '../../helpers/until.js';
import { segmentGet } from '../../helpers/mailroom-wire.js';

describe('filter segments: rules over contact fields, properties, topics and engagement, evaluated in SQL', () => {
  let t: CaptureApp;
  let news: string; // opt_in topic
  let promos: string; // opt_out topic
  let vip: string; // a fixed list
  const ids: Record<string, string> = {};
  const publicUrl = 'https://track.mailroom.test';
  const emailsOf = (data: { email: string }[]) => data.map((c) => c.email).sort();
  const preview = async (filter: unknown) => t.api('POST', '/segments/preview', { body: { filter } });
  const previewEmails = async (filter: unknown) => {
    const r = await preview(filter);
    assert.equal(r.status, 200, JSON.stringify([filter, r.body]));
    assert.equal(r.body.count, r.body.data.length, 'the fixture has fewer than 10 contacts');
    return emailsOf(r.body.data);
  };

  before(async () => {
    t = await startCaptureApp({ publicUrl });
    await t.api('PATCH', `/domains/${t.domainId}`, { body: { open_tracking: true, click_tracking: true } });
    await t.resend.contactProperties.create({ key: 'plan', type: 'string' } as never);
    await t.resend.contactProperties.create({ key: 'seats', type: 'number' } as never);
    news = (await t.api('POST', '/topics', { body: { name: 'News', default_subscription: 'opt_in' } })).body.id;
    promos = (await t.api('POST', '/topics', { body: { name: 'Promos', default_subscription: 'opt_out' } })).body.id;
    vip = (await t.resend.segments.create({ name: 'VIP' })).data!.id;
    const people = [
      {
        email: 'ann@dest.test',
        firstName: 'Ann',
        lastName: 'Lee',
        properties: { plan: 'pro', seats: 5 },
        segments: [{ id: vip }],
      },
      { email: 'bob@dest.test', firstName: 'Bob', unsubscribed: true, properties: { plan: 'free', seats: 1 } },
      { email: 'cy@dest.test' },
      { email: 'dee@dest.test', firstName: 'Dee', lastName: '', properties: { plan: 'Pro team', seats: 12 } },
    ];
    for (const p of people) {
      const r = await t.resend.contacts.create(p as never);
      assert.equal(r.error, null, JSON.stringify(r.error));
      ids[p.email] = r.data!.id;
      await sleep(5); // distinct created_at
    }
    assert.equal(
      (
        await t.resend.contacts.topics.update({
          id: ids['bob@dest.test'],
          topics: [{ id: news, subscription: 'opt_out' }],
        })
      ).error,
      null,
    );
    assert.equal(
      (
        await t.resend.contacts.topics.update({
          id: ids['dee@dest.test'],
          topics: [{ id: promos, subscription: 'opt_in' }],
        })
      ).error,
      null,
    );

    // Engagement through the real paths: capture-mode delivery, the open pixel and a tracked link.
    const html = async (id: string) => {
      const { rows } = await t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [id]);
      return (await simpleParser(rows[0].raw)).html as string;
    };
    const events = async (id: string) =>
      ((await t.api('GET', `/emails/${id}/events`)).body.data as { type: string }[]).map((e) => e.type);
    const toAnn = await t.send({ to: 'ann@dest.test', html: '<p>Hi <a href="https://shop.test/">shop</a></p>' });
    const toDee = await t.send({ to: 'Dee@dest.test', html: '<p>Hi <a href="https://shop.test/">shop</a></p>' }); // local part as typed: matched lowercased
    const toBoth = await t.send({ to: ['bob@dest.test', 'cy@dest.test'] as never, html: '<p>Hi</p>' });
    for (const id of [toAnn, toDee, toBoth])
      await until('delivered', async () => (await events(id)).includes('email.delivered'));
    const local = (u: string) => u.replace(publicUrl, t.url);
    await fetch(local(/src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(await html(toAnn))![1]));
    await fetch(local(/href="([^"]+\/t\/c\/[^"]+)"/.exec(await html(toDee))![1]), { redirect: 'manual' });
    await fetch(local(/src="([^"]+\/t\/o\/[^"]+\.gif)"/.exec(await html(toBoth))![1]));
    await until('opened', async () => (await events(toAnn)).includes('email.opened'));
    await until('clicked', async () => (await events(toDee)).includes('email.clicked'));
    await until('opened (two recipients)', async () => (await events(toBoth)).includes('email.opened'));
  });
  after(async () => {
    await t.close();
  });

  test('every op on strings, numbers, booleans and dates gives in SQL what the in-memory evaluator gives', async () => {
    const created = (await t.api('GET', `/contacts/${ids['bob@dest.test']}`)).body.created_at as string;
    const cases: [unknown, string[]][] = [
      [{ field: 'email', op: 'eq', value: 'ann@dest.test' }, ['ann']],
      [{ field: 'first_name', op: 'neq', value: 'Ann' }, ['bob', 'cy', 'dee']],
      [{ field: 'email', op: 'in', value: ['cy@dest.test', 'nobody@dest.test'] }, ['cy']],
      [{ field: 'first_name', op: 'contains', value: 'O' }, ['bob']],
      [{ field: 'email', op: 'starts_with', value: 'DE' }, ['dee']],
      [{ field: 'properties.plan', op: 'ends_with', value: 'TEAM' }, ['dee']],
      [{ field: 'properties.plan', op: 'eq', value: 'pro' }, ['ann']],
      [{ field: 'last_name', op: 'exists' }, ['ann', 'dee']],
      [{ field: 'last_name', op: 'is_empty' }, ['bob', 'cy', 'dee']],
      [{ field: 'properties.plan', op: 'is_empty' }, ['cy']],
      [{ field: 'properties.seats', op: 'eq', value: 5 }, ['ann']],
      [{ field: 'properties.seats', op: 'neq', value: 5 }, ['bob', 'cy', 'dee']],
      [{ field: 'properties.seats', op: 'gt', value: 5 }, ['dee']],
      [{ field: 'properties.seats', op: 'gte', value: 5 }, ['ann', 'dee']],
      [{ field: 'properties.seats', op: 'lt', value: 5 }, ['bob']],
      [{ field: 'properties.seats', op: 'lte', value: 5 }, ['ann', 'bob']],
      [{ field: 'properties.seats', op: 'in', value: [1, 12] }, ['bob', 'dee']],
      [{ field: 'properties.seats', op: 'exists' }, ['ann', 'bob', 'dee']],
      [{ field: 'unsubscribed', op: 'eq', value: true }, ['bob']],
      [{ field: 'unsubscribed', op: 'neq', value: true }, ['ann', 'cy', 'dee']],
      [{ field: 'created_at', op: 'gt', value: created }, ['cy', 'dee']],
      [{ field: 'created_at', op: 'lte', value: created }, ['ann', 'bob']],
      [{ field: 'created_at', op: 'lt', value: '2000-01-01' }, []],
      [
        {
          and: [
            { field: 'properties.plan', op: 'starts_with', value: 'pro' },
            { not: { field: 'properties.seats', op: 'gt', value: 10 } },
          ],
        },
        ['ann'],
      ],
      [
        {
          or: [
            { field: 'unsubscribed', op: 'eq', value: true },
            { field: 'first_name', op: 'is_empty' },
          ],
        },
        ['bob', 'cy'],
      ],
    ];
    const props = new Map<string, 'string' | 'number'>([
      ['plan', 'string'],
      ['seats', 'number'],
    ]);
    const full = await Promise.all(
      Object.values(ids).map(async (id) => {
        const c = (await t.api('GET', `/contacts/${id}`)).body; // properties on the wire: {key: {type, value}}
        return {
          ...c,
          properties: Object.fromEntries(
            Object.entries(c.properties as Record<string, { value: string | number }>).map(([k, v]) => [k, v.value]),
          ),
        };
      }),
    );
    for (const [filter, want] of cases) {
      const expected = want.map((n) => `${n}@dest.test`);
      assert.deepEqual(await previewEmails(filter), expected, JSON.stringify(filter));
      const rule = parseFilter(filter, { properties: props });
      assert.deepEqual(
        emailsOf(full.filter((c) => matches(rule, c))),
        expected,
        `in memory: ${JSON.stringify(filter)}`,
      );
    }
  });

  test("topic rules follow each topic's default; engagement rules read the recorded events by address", async () => {
    assert.deepEqual(
      await previewEmails({ topic: news }),
      ['ann@dest.test', 'cy@dest.test', 'dee@dest.test'],
      'opt_in: all but who opted out',
    );
    assert.deepEqual(await previewEmails({ topic: news, subscribed: false }), ['bob@dest.test']);
    assert.deepEqual(await previewEmails({ topic: promos }), ['dee@dest.test'], 'opt_out: only who opted in');
    assert.deepEqual(await previewEmails({ not: { topic: promos } }), [
      'ann@dest.test',
      'bob@dest.test',
      'cy@dest.test',
    ]);
    assert.deepEqual(
      await previewEmails({ engagement: 'opened', within_days: 30 }),
      ['ann@dest.test'],
      'an open of a two-recipient email names nobody',
    );
    assert.deepEqual(await previewEmails({ engagement: 'clicked' }), ['dee@dest.test'], 'Dee@ as sent is dee@');
    assert.deepEqual(await previewEmails({ engagement: 'clicked', never: true }), [
      'ann@dest.test',
      'bob@dest.test',
      'cy@dest.test',
    ]);
    assert.deepEqual(await previewEmails({ engagement: 'delivered' }), [
      'ann@dest.test',
      'bob@dest.test',
      'cy@dest.test',
      'dee@dest.test',
    ]);
    assert.deepEqual(await previewEmails({ engagement: 'bounced' }), []);
    await t.db.pool.query(
      "UPDATE email_events SET created_at = now() - interval '40 days' WHERE type = 'email.opened'",
    );
    assert.deepEqual(
      await previewEmails({ engagement: 'opened', within_days: 30 }),
      [],
      'an open 40 days ago is not within 30',
    );
    assert.deepEqual(await previewEmails({ engagement: 'opened', within_days: 60 }), ['ann@dest.test']);
    assert.deepEqual(
      await previewEmails({ and: [{ segment: vip }, { field: 'properties.plan', op: 'eq', value: 'pro' }] }),
      ['ann@dest.test'],
    );
  });

  test('a filter segment through the SDK and every listing route, with paging and its count', async () => {
    const filter = { and: [{ field: 'properties.plan', op: 'starts_with', value: 'pro' }, { topic: news }] };
    const made = await t.resend.segments.create({ name: 'Pro readers', filter } as never);
    assert.equal(made.error, null, JSON.stringify(made.error));
    const id = made.data!.id;
    const got = await segmentGet(t.resend, id);
    assert.deepEqual(got, {
      object: 'segment',
      id,
      name: 'Pro readers',
      created_at: got.created_at,
      filter: { and: [filter.and[0], { topic: news, subscribed: true }] },
      contacts_count: 2,
      contacts_count_capped: false,
    });
    const listed = (await t.resend.segments.list()).data!.data as unknown as { id: string; filter: unknown }[];
    assert.deepEqual(listed.find((s) => s.id === id)!.filter, got.filter);
    assert.equal(listed.find((s) => s.id === vip)!.filter, null);
    assert.equal((await t.api('GET', `/segments/${vip}`)).body.contacts_count, 1);
    const pro = ['ann@dest.test', 'dee@dest.test'];
    assert.deepEqual(emailsOf((await t.resend.contacts.list({ segmentId: id })).data!.data), pro);
    assert.deepEqual(emailsOf((await t.api('GET', `/contacts?segment_id=${id}`)).body.data), pro);
    assert.deepEqual(emailsOf((await t.api('GET', `/audiences/${id}/contacts`)).body.data), pro);
    assert.equal((await t.api('GET', `/audiences/${id}/contacts/dee@dest.test`)).status, 200);
    assert.equal((await t.api('GET', `/audiences/${id}/contacts/bob@dest.test`)).status, 404, 'bob does not match');
    const first = await t.api('GET', `/segments/${id}/contacts?limit=1`);
    assert.deepEqual(
      [first.body.has_more, first.body.data.map((c: any) => c.email)],
      [true, ['dee@dest.test']],
      'newest first',
    );
    const second = await t.api('GET', `/segments/${id}/contacts?limit=1&after=${first.body.data[0].id}`);
    assert.deepEqual([second.body.has_more, second.body.data.map((c: any) => c.email)], [false, ['ann@dest.test']]);
    const back = await t.api('GET', `/segments/${id}/contacts?limit=1&before=${second.body.data[0].id}`);
    assert.deepEqual(
      back.body.data.map((c: any) => c.email),
      ['dee@dest.test'],
    );
    const anns = (await t.resend.contacts.segments.list({ contactId: ids['ann@dest.test'] })).data!.data.map(
      (s) => s.name,
    );
    assert.deepEqual(anns, ['VIP', 'Pro readers'], 'memberships and matching filters, oldest first');
    assert.deepEqual((await t.resend.contacts.segments.list({ contactId: ids['bob@dest.test'] })).data!.data, []);
    const join = await t.api('POST', `/contacts/${ids['cy@dest.test']}/segments/${id}`);
    assert.equal(join.status, 422);
    assert.match(join.body.message, /has a filter/);
    const withSeg = await t.resend.contacts.create({ email: 'eve@dest.test', segments: [{ id }] } as never);
    assert.equal(withSeg.error?.name, 'validation_error');
    const p = await preview(filter);
    assert.deepEqual([p.body.object, p.body.count, emailsOf(p.body.data)], ['segment_preview', 2, pro]);
    assert.deepEqual(
      Object.keys(p.body.data[0]).sort(),
      ['created_at', 'email', 'first_name', 'id', 'last_name', 'unsubscribed'],
      'items as GET /contacts lists them',
    );
  });

  test('PATCH sets, replaces and clears a filter; a segment with members cannot take one', async () => {
    const refused = await t.api('PATCH', `/segments/${vip}`, { body: { filter: { field: 'email', op: 'exists' } } });
    assert.equal(refused.status, 422);
    assert.match(refused.body.message, /^Invalid `filter` field: this segment has members/);
    const s = (await t.resend.segments.create({ name: 'Later' })).data!.id;
    assert.equal(
      (await t.api('PATCH', `/segments/${s}`, { body: { filter: { field: 'unsubscribed', op: 'eq', value: true } } }))
        .status,
      200,
    );
    assert.deepEqual(emailsOf((await t.api('GET', `/segments/${s}/contacts`)).body.data), ['bob@dest.test']);
    assert.equal(
      (
        await t.api('PATCH', `/segments/${s}`, {
          body: { filter: { field: 'first_name', op: 'eq', value: 'Ann' }, name: 'Anns' },
        })
      ).status,
      200,
    );
    const got = (await t.api('GET', `/segments/${s}`)).body;
    assert.deepEqual([got.name, got.contacts_count], ['Anns', 1]);
    assert.equal((await t.api('PATCH', `/segments/${s}`, { body: { filter: null } })).status, 200);
    assert.deepEqual(
      [(await t.api('GET', `/segments/${s}`)).body.filter, (await t.api('GET', `/segments/${s}/contacts`)).body.data],
      [null, []],
    );
    assert.equal(
      (await t.api('POST', `/contacts/${ids['cy@dest.test']}/segments/${s}`)).status,
      200,
      'a fixed list again',
    );
    const self = await t.api('PATCH', `/segments/${s}`, { body: { filter: { segment: s } } });
    assert.equal(self.status, 422);
  });

  test("bad filters are 422s naming the path, checked against the team's properties, topics and segments", async () => {
    const cases: [unknown, RegExp][] = [
      [
        {
          and: [
            { field: 'email', op: 'exists' },
            { field: 'email', op: 'like', value: 'x' },
          ],
        },
        /^Invalid `filter\.and\[1\]\.op` field/,
      ],
      [
        { or: [{ field: 'properties.tier', op: 'eq', value: 'gold' }] },
        /^Invalid `filter\.or\[0\]\.field` field: no contact property has the key "tier"/,
      ],
      [{ field: 'properties.seats', op: 'gt', value: 'ten' }, /^Invalid `filter\.value` field: must be a number/],
      [
        { not: { topic: '00000000-0000-4000-8000-000000000000' } },
        /^Invalid `filter\.not\.topic` field: no topic has the id/,
      ],
      [{ segment: '00000000-0000-4000-8000-000000000000' }, /^Invalid `filter\.segment` field: no segment has the id/],
      [{ engagement: 'opened', within_days: 'thirty' }, /^Invalid `filter\.within_days` field/],
    ];
    for (const [filter, message] of cases) {
      for (const r of [await t.api('POST', '/segments', { body: { name: 'Bad', filter } }), await preview(filter)]) {
        assert.equal(r.status, 422, JSON.stringify(filter));
        assert.deepEqual([r.body.name, r.body.statusCode], ['validation_error', 422]);
        assert.match(r.body.message, message);
      }
    }
    const filterSeg = (
      await t.api('POST', '/segments', { body: { name: 'F', filter: { field: 'email', op: 'exists' } } })
    ).body.id;
    const nested = await preview({ segment: filterSeg });
    assert.match(nested.body.message, /`filter\.segment` field: must be a segment of fixed members/);
    assert.equal((await t.api('POST', '/segments/preview', { body: {} })).status, 422);
  });

  test('segmentRecipientsAfter walks a segment of either kind by (created_at, id) cursor, oldest first; counts stop at their cap', async () => {
    const teamId = (await t.db.pool.query('SELECT team_id FROM contacts LIMIT 1')).rows[0].team_id as string;
    const walk = async (s: { id: string; filter: any }) => {
      const seen: string[] = [];
      let cursor = null;
      for (let i = 0; i < 10; i++) {
        const page: Awaited<ReturnType<typeof segmentRecipientsAfter>> = await segmentRecipientsAfter(
          t.db.pool,
          teamId,
          s,
          cursor,
          2,
        );
        seen.push(...page.rows.map((r) => r.email));
        if (!page.next) break;
        cursor = page.next;
      }
      return seen;
    };
    assert.deepEqual(await walk({ id: '', filter: { field: 'email', op: 'exists' } }), [
      'ann@dest.test',
      'bob@dest.test',
      'cy@dest.test',
      'dee@dest.test',
    ]);
    assert.deepEqual(await walk({ id: vip, filter: null }), ['ann@dest.test']);
    const everyone = { id: '', filter: { field: 'email', op: 'exists' } as const };
    assert.deepEqual(
      await segmentContactsCount(t.db.pool, teamId, everyone, 2),
      { count: 2, capped: true },
      'a capped count stops at the cap',
    );
    assert.deepEqual(await segmentContactsCount(t.db.pool, teamId, everyone, 4), { count: 4, capped: false });
  });
});

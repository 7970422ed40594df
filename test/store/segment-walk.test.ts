// The windowed walk that pages filter segments (store/segment-contacts.ts filterPageWalk) returns
// exactly the rows of the plain keyset query (paginate), page after page, whether a page fills in
// the first window, needs several, or falls through to the set-based query for the rest. Tiny
// windows (2, 3, 5 contacts) drive every path over a few hundred contacts on the real PostgreSQL.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { Rule } from '../../src/lib/filter-rule.js';
import { CONTACT_LIST_COLUMNS } from '../../src/store/contacts.js';
import { paginate, type PageQuery } from '../../src/store/paginate.js';
import { filterPageWalk } from '../../src/store/segment-contacts.js';
import { filterSql, topicDefaultsFind } from '../../src/store/segment-filter.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';

let db: TestDatabase;
const team = randomUUID();
const topic = randomUUID();
const N = 400;

before(async () => {
  db = await freshDatabase();
  await db.pool.query("INSERT INTO teams (id, name) VALUES ($1, 'Walk')", [team]);
  await db.pool.query(
    "INSERT INTO topics (id, team_id, name, default_subscription) VALUES ($1, $2, 'Promos', 'opt_out')",
    [topic, team],
  );
  // Contacts a second apart, some sharing a created_at (ties are broken by id); plans rare and common.
  await db.pool.query(
    `INSERT INTO contacts (id, team_id, email, first_name, unsubscribed, properties, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'c' || g || '@walk.test', 'F' || (g % 10), g % 9 = 0,
            jsonb_build_object('plan', CASE WHEN g % 97 = 0 THEN 'enterprise' WHEN g % 3 = 0 THEN 'pro' ELSE 'free' END),
            timestamptz '2026-01-01' + make_interval(secs => (g / 2) * 1.0), now()
     FROM generate_series(1, $2) g`,
    [team, N],
  );
  await db.pool.query(
    `INSERT INTO contact_topics (contact_id, topic_id, subscription) SELECT id, $1, 'opt_in' FROM contacts WHERE team_id = $2 AND first_name IN ('F1', 'F4')`,
    [topic, team],
  );
});
after(async () => {
  await db?.drop();
});

const FILTERS: [string, Rule][] = [
  ['common: plan = free', { field: 'properties.plan', op: 'eq', value: 'free' }],
  ['rare: plan = enterprise (4 of 400)', { field: 'properties.plan', op: 'eq', value: 'enterprise' }],
  [
    'rare and a topic: enterprise or (pro and in Promos)',
    {
      or: [
        { field: 'properties.plan', op: 'eq', value: 'enterprise' },
        {
          and: [
            { field: 'properties.plan', op: 'eq', value: 'pro' },
            { topic, subscribed: true },
          ],
        },
      ],
    },
  ],
  ['none match', { field: 'first_name', op: 'eq', value: 'nobody' }],
  ['all match', { field: 'first_name', op: 'exists' }],
];

/** Every page by both methods, following `after` cursors to the end. */
async function pagesBoth(rule: Rule, limit: number, windows: number[]) {
  const params: unknown[] = [];
  const where = filterSql(rule, await topicDefaultsFind(db.pool, team, rule), params);
  const plain = (page: PageQuery) =>
    paginate<{ id: string }>(db.pool, {
      table: 'contacts',
      columns: CONTACT_LIST_COLUMNS,
      teamId: team,
      page,
      where,
      params,
    });
  const walked = (page: PageQuery) =>
    filterPageWalk(db.pool, team, { id: '', filter: rule }, { ...page, limit }, windows);
  const out: { plain: unknown[]; walked: unknown[] } = { plain: [], walked: [] };
  for (const [name, get] of [
    ['plain', plain],
    ['walked', walked],
  ] as const) {
    let after: string | undefined;
    for (let i = 0; i < N + 2; i++) {
      const p = await get({ limit, after });
      out[name].push({ has_more: p.has_more, ids: p.data.map((r) => r.id) });
      if (!p.has_more) break;
      after = p.data[p.data.length - 1].id;
    }
  }
  return out;
}

for (const [name, rule] of FILTERS) {
  test(`the windowed walk pages "${name}" exactly as the plain query does`, async () => {
    for (const [limit, windows] of [
      [3, [2, 3, 5]],
      [10, [5, 25]],
      [50, [7]],
      [1, [400]],
      [7, [1000]],
    ] as [number, number[]][]) {
      const { plain, walked } = await pagesBoth(rule, limit, windows);
      assert.ok(plain.length >= 1);
      assert.deepEqual(walked, plain, `limit ${limit}, windows ${windows.join(',')}`);
    }
  });
}

test('the walk refuses an unknown cursor as the plain list does', async () => {
  await assert.rejects(
    filterPageWalk(db.pool, team, { id: '', filter: FILTERS[0][1] }, { limit: 5, after: randomUUID() }),
    /`after` cursor does not match any item/,
  );
});

// Finding one contact among a team's 10,000 by part of its address (issue 30): the list and the
// count read the trigram index of 0065 (contacts_search_trgm) and touch about as many rows as
// match, not the team's 10,000 (nor the table's 70,000), and they find the one contact.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { contactSearchCount, contactSearchPage } from '../../src/store/contact-search.js';
import type { Queryable } from '../../src/store/db.js';

let db: TestDatabase;
let team: string;
before(async () => {
  db = await freshDatabase();
  const teams = (
    await db.pool.query(
      `INSERT INTO teams (id, name) SELECT gen_random_uuid(), 't' || i FROM generate_series(1, 4) i RETURNING id`,
    )
  ).rows.map((r) => r.id as string);
  team = teams[0];
  for (const [i, t] of teams.entries())
    await db.pool.query(
      `INSERT INTO contacts (id, team_id, email, first_name, created_at)
       SELECT gen_random_uuid(), $1::uuid, 'person' || g || '.' || md5(g::text || $1::text) || '@example' || (g % 50) || '.com', 'First' || g, now() - make_interval(secs => g)
       FROM generate_series(1, $2::int) g`,
      [t, i === 0 ? 10_000 : 20_000],
    );
  await db.pool.query(
    `INSERT INTO contacts (id, team_id, email, first_name) VALUES (gen_random_uuid(), $1, 'zelda.needle-7731@hidden-example.org', 'Zelda')`,
    [team],
  );
  await db.pool.query('ANALYZE contacts');
});
after(async () => {
  await db?.drop();
});

/** Runs the store's statement under EXPLAIN ANALYZE and returns the plan (the only query each makes). */
function explaining(plans: unknown[]): Queryable {
  return {
    query: async (sql: string, params?: unknown[]) => {
      const r = await db.pool.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      plans.push(r.rows[0]['QUERY PLAN'][0].Plan);
      return { rows: [{ n: 0 }], rowCount: 0 } as never;
    },
  } as unknown as Queryable;
}

type Node = { 'Node Type': string; 'Index Name'?: string; 'Actual Rows': number; Plans?: Node[] };
const nodes = (n: Node): Node[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

test('a rare part of an address is found through the trigram index, reading a handful of rows', async () => {
  const m = { search: 'needle-7731@hidden' };
  const page = await contactSearchPage(db.pool, team, m, { limit: 50 }, false);
  assert.deepEqual(
    page.data.map((c) => c.email),
    ['zelda.needle-7731@hidden-example.org'],
  );
  assert.deepEqual(await contactSearchCount(db.pool, team, m, 1_000_000), { count: 1, capped: false });
  const plans: unknown[] = [];
  await contactSearchPage(explaining(plans), team, m, { limit: 50 }, false);
  await contactSearchCount(explaining(plans), team, m, 1_000_000);
  for (const p of plans as Node[]) {
    const all = nodes(p);
    assert.ok(
      all.some((n) => n['Index Name'] === 'contacts_search_trgm'),
      `no trigram index in ${JSON.stringify(p)}`,
    );
    const scanned = Math.max(...all.filter((n) => /Scan/.test(n['Node Type'])).map((n) => n['Actual Rows']));
    assert.ok(scanned < 100, `a scan returned ${scanned} rows`);
  }
});

// Migration 0068 (issue 27, the accept path's PostgreSQL cost): the GIN index expressions' functions
// rewritten in PL/pgSQL must give exactly what the SQL ones of 0007/0029 gave for every input
// (otherwise the indexes built with the old ones would be wrong), the list's recipient filters must
// still use those indexes, and the counting trigger's early return must not skip a statement that
// mixes accepted emails' events with a delivery result.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, seedDomain, type TestDatabase } from '../helpers/db.js';
import { reputationSums } from '../../src/store/reputation.js';

let db: TestDatabase;
const team = randomUUID();
const domain = randomUUID();

before(async () => {
  db = await freshDatabase();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [team, 'accept']);
  await seedDomain(db.pool, { id: domain, teamId: team, name: 'accept.test' });
});
after(async () => {
  await db.drop();
});

test('the PL/pgSQL index functions equal the SQL ones they replace, input by input', async () => {
  // 0007's and 0029's definitions, under other names
  await db.pool.query(`CREATE FUNCTION old_lower_addrs(text[]) RETURNS text[] LANGUAGE sql IMMUTABLE
    AS 'SELECT coalesce(array_agg(lower(a)), ''{}'') FROM unnest($1) AS a'`);
  await db.pool.query(`CREATE FUNCTION old_addrs_text(text[]) RETURNS text LANGUAGE sql IMMUTABLE
    AS 'SELECT lower(array_to_string($1, '' ''))'`);
  const inputs = [
    null,
    '{}',
    '{Sink@Sink.Test}',
    '{A@B.C,d@E.f,"Ünï@Çödé.test"}',
    '{NULL,X@Y.z}',
    '{NULL}',
    '[0:1]={A@B.c,C@D.e}',
    '{{A,B},{C,D}}',
    '{"with space@x.y","quote\\"d@x.y",ß@x.y}',
  ];
  for (const v of inputs) {
    const { rows } = await db.pool.query(
      `SELECT mailroom_lower_addrs($1::text[]) AS a, old_lower_addrs($1::text[]) AS b,
              mailroom_lower_addrs($1::text[])::text AS at, old_lower_addrs($1::text[])::text AS bt,
              mailroom_addrs_text($1::text[]) AS c, old_addrs_text($1::text[]) AS d`,
      [v],
    );
    assert.equal(rows[0].at, rows[0].bt, `mailroom_lower_addrs(${v}) (bounds included)`);
    assert.deepEqual(rows[0].a, rows[0].b, `mailroom_lower_addrs(${v})`);
    assert.equal(rows[0].c, rows[0].d, `mailroom_addrs_text(${v})`);
  }
  const { rows } = await db.pool.query(
    `SELECT p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'plpgsql') AS plpgsql, p.provolatile
     FROM pg_proc p WHERE proname IN ('mailroom_lower_addrs', 'mailroom_addrs_text')`,
  );
  assert.equal(rows.length, 2);
  for (const r of rows) assert.deepEqual([r.plpgsql, r.provolatile], [true, 'i']);
});

test('the recipient filters still use the indexes', async () => {
  const client = await db.pool.connect();
  try {
    await client.query('SET enable_seqscan = off');
    const plan = async (where: string, v: string) =>
      JSON.stringify((await client.query(`EXPLAIN (FORMAT JSON) SELECT id FROM emails WHERE ${where}`, [v])).rows[0]);
    assert.match(await plan(`mailroom_lower_addrs(to_addrs) @> ARRAY[lower($1)]`, 'x@y.z'), /emails_search/);
    const trgm = await client.query(`SELECT 1 FROM pg_class WHERE relname = 'emails_addrs_trgm'`);
    if (trgm.rowCount) assert.match(await plan(`mailroom_addrs_text(to_addrs) LIKE $1`, '%noah%'), /emails_addrs_trgm/);
  } finally {
    client.release();
  }
});

test('a statement with accepted emails and a delivery result still counts the result; one with none counts nothing', async () => {
  const ids = [randomUUID(), randomUUID()];
  for (const id of ids)
    await db.pool.query(
      `INSERT INTO emails (id, team_id, domain_id, message_id, from_header, to_addrs, subject, last_event)
       VALUES ($1, $2, $3, $4, 'a@accept.test', ARRAY['R@Y.test'], 's', 'sent')`,
      [id, team, domain, `<${id}@accept.test>`],
    );
  const insert = (rows: [string, string][]) =>
    db.pool.query(
      `INSERT INTO email_events (id, email_id, team_id, type, data)
       SELECT gen_random_uuid(), e, $1, t, '{}' FROM unnest($2::uuid[], $3::text[]) AS x (e, t)`,
      [team, rows.map((r) => r[0]), rows.map((r) => r[1])],
    );
  const delivered = async () =>
    Number((await reputationSums(db.pool, domain, [new Date(Date.now() - 3600_000)]))[0].delivered);
  await insert([
    [ids[0], 'email.sent'],
    [ids[1], 'email.scheduled'],
  ]);
  assert.equal(await delivered(), 0);
  await insert([
    [ids[0], 'email.sent'],
    [ids[1], 'email.delivered'],
  ]);
  assert.equal(await delivered(), 1, 'the delivery among accepted events is counted');
  const mapped = await db.pool.query(
    `SELECT count(*)::int AS n FROM emails WHERE mailroom_lower_addrs(to_addrs) @> ARRAY['r@y.test'] AND team_id = $1`,
    [team],
  );
  assert.equal(mapped.rows[0].n, 2, 'rows inserted with the new function are found by the lowercased recipient');
});

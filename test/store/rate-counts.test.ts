// The delivery-result counters striped by session (0067, issue 27): results statements of
// different sessions no longer wait on one counter row, and the counters stay exact under real
// parallel connections and across the fold of the slots into the totals (rateCountsFold, the
// recurring metrics job) running at the same time: every reader (the guard's bucket and window sums, the hourly series, the Prometheus
// overview, the broadcast's automatic pause and its list stats) equals a count of the events.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { freshDatabase, seedDomain, type TestDatabase } from '../helpers/db.js';
import {
  BUCKET_MS,
  bucketOf,
  rateCountsFold,
  reputationBucket,
  reputationHourly,
  reputationOverview,
  reputationSums,
} from '../../src/store/reputation.js';
import { broadcastRateCounts } from '../../src/store/broadcast-stats.js';

let db: TestDatabase;
const team = randomUUID();
const domains = [randomUUID(), randomUUID()];
const broadcast = randomUUID();
const emails: { id: string; domain: string; broadcast: boolean }[] = [];

before(async () => {
  db = await freshDatabase();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [team, 'counts']);
  for (const [i, d] of domains.entries()) await seedDomain(db.pool, { id: d, teamId: team, name: `d${i}.counts.test` });
  await db.pool.query(`INSERT INTO broadcasts (id, team_id, status) VALUES ($1, $2, 'sending')`, [broadcast, team]);
  for (let i = 0; i < 200; i++) {
    const e = { id: randomUUID(), domain: domains[i % 2], broadcast: i % 4 === 0 };
    emails.push(e);
    await db.pool.query(
      `INSERT INTO emails (id, team_id, domain_id, broadcast_id, message_id, from_header, to_addrs, subject, last_event)
       VALUES ($1, $2, $3, $4, $5, 'a@x.test', ARRAY[$6], 's', 'sent')`,
      [e.id, team, e.domain, e.broadcast ? broadcast : null, `<${e.id}@x.test>`, `r${i}@y.test`],
    );
  }
});
after(async () => {
  await db.drop();
});

const connect = async () => {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  return c;
};

const KINDS = [
  ['email.delivered', {}],
  ['email.delivered', {}],
  ['email.delivered', {}],
  ['email.bounced', { bounce: { type: 'Permanent' } }],
  ['email.bounced', { bounce: { type: 'Transient' } }],
  ['email.complained', {}],
  ['email.clicked', {}],
] as const;

/** What the counters must say, counted from the events themselves. */
async function expected() {
  const { rows: dom } = await db.pool.query(
    `SELECT e.domain_id, date_bin('10 minutes', ev.created_at, TIMESTAMPTZ '2000-01-01 00:00:00+00') AS bucket,
       count(*) FILTER (WHERE ev.type = 'email.delivered')::int AS delivered, count(*) FILTER (WHERE ev.type = 'email.bounced')::int AS bounced,
       count(*) FILTER (WHERE ev.type = 'email.bounced' AND ev.data->'bounce'->>'type' = 'Permanent')::int AS hard_bounced,
       count(*) FILTER (WHERE ev.type = 'email.complained')::int AS complained
     FROM email_events ev JOIN emails e ON e.id = ev.email_id
     WHERE ev.type IN ('email.delivered', 'email.bounced', 'email.complained') GROUP BY 1, 2 ORDER BY 1, 2`,
  );
  const { rows: b } = await db.pool.query(
    `SELECT count(*) FILTER (WHERE ev.type = 'email.delivered')::int AS delivered, count(*) FILTER (WHERE ev.type = 'email.bounced')::int AS bounced,
       count(*) FILTER (WHERE ev.type = 'email.bounced' AND ev.data->'bounce'->>'type' = 'Permanent')::int AS hard_bounced,
       count(*) FILTER (WHERE ev.type = 'email.complained')::int AS complained,
       count(DISTINCT ev.email_id) FILTER (WHERE ev.type = 'email.clicked')::int AS clicked
     FROM email_events ev JOIN emails e ON e.id = ev.email_id WHERE e.broadcast_id = $1`,
    [broadcast],
  );
  return { dom, broadcast: b[0] };
}

async function assertExact(label: string, buckets = 1) {
  const want = await expected();
  assert.ok(want.dom.length >= buckets, `events in ${buckets} buckets or more`);
  for (const r of want.dom) {
    const got = await reputationBucket(db.pool, r.domain_id, r.bucket);
    assert.deepEqual(
      got,
      { delivered: r.delivered, bounced: r.bounced, hard_bounced: r.hard_bounced, complained: r.complained },
      `${label}: bucket ${r.bucket.toISOString()} of ${r.domain_id}`,
    );
  }
  const weekStart = new Date(Date.now() - 7 * 86_400_000);
  const hourStart = new Date(Date.now() - 3_600_000);
  for (const d of domains) {
    const mine = want.dom.filter((r) => r.domain_id === d);
    const sum = (rows: typeof mine) =>
      rows.reduce(
        (a, r) => ({
          delivered: a.delivered + r.delivered,
          bounced: a.bounced + r.bounced,
          hard_bounced: a.hard_bounced + r.hard_bounced,
          complained: a.complained + r.complained,
        }),
        { delivered: 0, bounced: 0, hard_bounced: 0, complained: 0 },
      );
    const [week, hour] = await reputationSums(db.pool, d, [weekStart, hourStart]);
    assert.deepEqual(week, sum(mine), `${label}: 7-day sums of ${d}`);
    assert.deepEqual(hour, sum(mine.filter((r) => r.bucket >= hourStart)), `${label}: last hour of ${d}`);
    const hourly = await reputationHourly(db.pool, d, weekStart);
    assert.equal(
      hourly.reduce((a, h) => a + h.delivered, 0),
      sum(mine).delivered,
      `${label}: hourly series of ${d}`,
    );
    const overview = (await reputationOverview(db.pool, hourStart, weekStart)).find((o) => o.domain_id === d);
    assert.deepEqual(overview?.week, mine.length ? sum(mine) : undefined, `${label}: overview of ${d}`);
  }
  const b = want.broadcast;
  assert.deepEqual(
    await broadcastRateCounts(db.pool, broadcast),
    { delivered: b.delivered, bounced: b.bounced, hard_bounced: b.hard_bounced, complained: b.complained },
    `${label}: the broadcast's pause counters`,
  );
  const { rows } = await db.pool.query(
    `SELECT sum(clicked)::int AS clicked FROM (SELECT clicked FROM broadcast_rate_counts WHERE broadcast_id = $1
       UNION ALL SELECT clicked FROM broadcast_rate_count_slots WHERE broadcast_id = $1) c`,
    [broadcast],
  );
  assert.equal(rows[0].clicked, b.clicked, `${label}: the broadcast's clicked emails`);
}

test('a results statement does not wait on another session holding its counter rows', async () => {
  // Two sessions in different slots (pid modulo 64), as the pool's connections almost always are.
  const sessions: pg.Client[] = [];
  try {
    let a: pg.Client | undefined;
    let b: pg.Client | undefined;
    for (let i = 0; i < 8 && !b; i++) {
      const c = await connect();
      sessions.push(c);
      const slot = (await c.query('SELECT pg_backend_pid() % 64 AS s')).rows[0].s;
      if (!a) a = c;
      else if (slot !== (await a.query('SELECT pg_backend_pid() % 64 AS s')).rows[0].s) b = c;
    }
    assert.ok(a && b, 'two sessions in different slots');
    const e = emails.find((x) => x.broadcast)!;
    const ins = `INSERT INTO email_events (id, email_id, team_id, type, data) VALUES (gen_random_uuid(), $1, $2, 'email.delivered', '{}')`;
    await a.query('BEGIN');
    await a.query(ins, [e.id, team]); // holds its slot's rows of the domain's bucket and the broadcast
    await b.query("SET statement_timeout = '3s'");
    await b.query(ins, [e.id, team]); // waited for a's commit (and timed out) with one row per counter
    await a.query('COMMIT');
    await assertExact('two sessions');
  } finally {
    for (const c of sessions) await c.end();
  }
});

test('the counters stay exact under parallel sessions and a fold running at the same time', async () => {
  const WRITERS = 8;
  const ROUNDS = 40;
  const clients = await Promise.all(Array.from({ length: WRITERS }, connect));
  let writing = true;
  let folds = 0;
  let folded = 0;
  let slots = 0; // the most slots of one domain bucket seen between folds
  const folder = (async () => {
    while (writing) {
      const { rows } = await db.pool.query(
        'SELECT coalesce(max(n), 0)::int AS n FROM (SELECT count(*) AS n FROM domain_reputation_count_slots GROUP BY domain_id, bucket) x',
      );
      slots = Math.max(slots, rows[0].n);
      folded += await rateCountsFold(db.pool);
      folds++;
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  try {
    await Promise.all(
      clients.map(async (c, w) => {
        for (let r = 0; r < ROUNDS; r++) {
          // one transaction of a few results, some in a bucket two hours old
          const n = 1 + ((w + r) % 4);
          const picks = Array.from({ length: n }, (_, k) => {
            const e = emails[(w * 31 + r * 7 + k * 13) % emails.length];
            const [type, data] = KINDS[(w + r + k) % KINDS.length];
            return { email_id: e.id, type, data, old: (r + k) % 3 === 0 };
          });
          await c.query('BEGIN');
          await c.query(
            `INSERT INTO email_events (id, email_id, team_id, type, data, created_at)
             SELECT gen_random_uuid(), x.email_id, $2, x.type, x.data,
                    CASE WHEN x.old THEN now() - interval '2 hours' ELSE now() END
             FROM json_to_recordset($1::json) AS x (email_id uuid, type text, data jsonb, old boolean)`,
            [JSON.stringify(picks), team],
          );
          await c.query('COMMIT');
        }
      }),
    );
  } finally {
    writing = false;
    await folder;
    await Promise.all(clients.map((c) => c.end()));
  }
  assert.ok(folds > 3, `the fold ran during the writes (${folds} times)`);
  assert.ok(folded > 0, 'and folded slot rows');
  assert.ok(slots > 1, `a bucket was striped over sessions (${slots} slots at most)`);
  await assertExact('after parallel writes', 4);

  // Across a last fold: every slot row is in the totals, sums unchanged, one total row per key.
  await rateCountsFold(db.pool);
  const { rows: left } = await db.pool.query(
    `SELECT (SELECT count(*) FROM domain_reputation_count_slots)::int AS dom, (SELECT count(*) FROM broadcast_rate_count_slots)::int AS b`,
  );
  assert.deepEqual(left[0], { dom: 0, b: 0 }, 'every slot folded');
  await assertExact('after the fold', 4);
  assert.equal(bucketOf(new Date(BUCKET_MS * 3 + 5)).getTime(), BUCKET_MS * 3);
});

// Filter segments over 1,000,000 contacts of one team (issue 13): the first page of
// GET /segments/:id/contacts and GET /segments/:id (its contacts_count) through HTTP, for a few
// realistic filters. Peer in the same run on the same data: the same question as hand-written SQL
// over pg (no HTTP, no JSON). Also the write cost of the engagement index on email_events.
// Usage: npm run build && node --import tsx bench/segment-filter.ts [contacts] [samples] (about 6 minutes at 1M)
import pg from 'pg';
import { freshDb, KEY, loadAverage, machine, startService, latencySummary, timeCalls } from './lib.js';

const N = Number(process.argv[2] ?? 1_000_000);
const SAMPLES = Number(process.argv[3] ?? 30);
const PAGE = 50;

const summary = (xs: number[]) => latencySummary(xs, 1);
const time = (fn: () => Promise<unknown>, n = SAMPLES) => timeCalls(fn, n);

const db = await freshDb();
const svc = await startService({
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_ROLES: 'api',
  MAILROOM_DELIVERY_MODE: 'capture',
  MAILROOM_RATE_LIMIT: '1000000',
});
const c = new pg.Client({ connectionString: db.url, options: '-c TimeZone=UTC' });
await c.connect();
try {
  const call = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(svc.url + p, {
      method,
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await r.json();
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  await call('POST', '/contact-properties', { key: 'plan', type: 'string' });
  await call('POST', '/contact-properties', { key: 'seats', type: 'number' });
  const news = (await call('POST', '/topics', { name: 'News', default_subscription: 'opt_in' })).id as string;
  const promos = (await call('POST', '/topics', { name: 'Promos', default_subscription: 'opt_out' })).id as string;
  const {
    rows: [{ team_id: team }],
  } = await c.query('SELECT team_id FROM api_keys LIMIT 1');

  // Contacts over the last two years: plan free 60% / pro 25% / team 10% / enterprise 5%; 5% left
  // News (opt_in), 10% joined Promos (opt_out); half got mail in the last 90 days, 20% opened one
  // (half of those in the last 30 days), 5% clicked.
  let t0 = performance.now();
  await c.query(
    `INSERT INTO contacts (id, team_id, email, first_name, last_name, unsubscribed, properties, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'user' || g || '@dest' || (g % 7) || '.test', 'First' || (g % 1000), 'Last' || (g % 997), g % 50 = 0,
            jsonb_build_object('plan', CASE WHEN (hashtext(g::text) & 1023) < 614 THEN 'free' WHEN (hashtext(g::text) & 1023) < 870 THEN 'pro'
              WHEN (hashtext(g::text) & 1023) < 972 THEN 'team' ELSE 'enterprise' END, 'seats', g % 50),
            now() - make_interval(secs => (${N} - g) * 63.0), now()
     FROM generate_series(1, $2) g`,
    [team, N],
  );
  const loadContacts = performance.now() - t0;
  t0 = performance.now();
  await c.query(
    `INSERT INTO contact_topics (contact_id, topic_id, subscription) SELECT id, $1, 'opt_out' FROM contacts WHERE (hashtext(email) & 1023) < 51`,
    [news],
  );
  await c.query(
    `INSERT INTO contact_topics (contact_id, topic_id, subscription) SELECT id, $1, 'opt_in' FROM contacts WHERE (hashtext(email || 'p') & 1023) < 102`,
    [promos],
  );
  // Events point at emails by id only (no FK since 0008): one synthetic email id per contact.
  await c.query(
    `INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
     SELECT gen_random_uuid(), gen_random_uuid(), $1, t.type, CASE WHEN t.type = 'email.sent' THEN NULL ELSE c.email END, '{}'::jsonb, now() - make_interval(secs => t.ago)
     FROM (SELECT email, hashtext(email || 'e') & 1023 AS h FROM contacts) c
     CROSS JOIN LATERAL (VALUES
       ('email.sent', (c.h % 90) * 86400.0 + 60), ('email.delivered', (c.h % 90) * 86400.0 + 58),
       (CASE WHEN c.h < 205 THEN 'email.opened' END, CASE WHEN c.h < 102 THEN (c.h % 30) * 86400.0 ELSE (30 + c.h % 60) * 86400.0 END),
       (CASE WHEN c.h < 51 THEN 'email.clicked' END, (c.h % 30) * 86400.0)) AS t (type, ago)
     WHERE t.type IS NOT NULL AND (c.h < 512 OR t.type NOT IN ('email.sent', 'email.delivered'))`,
    [team],
  );
  const loadEvents = performance.now() - t0;
  await c.query('VACUUM ANALYZE contacts');
  await c.query('VACUUM ANALYZE contact_topics');
  await c.query('VACUUM ANALYZE email_events');
  const counts = (
    await c.query(`SELECT (SELECT count(*) FROM contacts)::int AS contacts, (SELECT count(*) FROM contact_topics)::int AS topic_rows,
    (SELECT count(*) FROM email_events)::int AS events`)
  ).rows[0];

  // The write cost of the partial engagement index (migration 0016): 100,000 engagement events
  // inserted in batches of 100 with it, then without it, then the index built again.
  const insertEvents = async () => {
    const t = performance.now();
    for (let i = 0; i < 1000; i++) {
      await c.query(
        `INSERT INTO email_events (id, email_id, team_id, type, recipient, data)
        SELECT gen_random_uuid(), gen_random_uuid(), $1, 'email.delivered', 'new' || g || '@dest.test', '{}'::jsonb FROM generate_series(1, 100) g`,
        [team],
      );
    }
    return +((performance.now() - t) / 1000).toFixed(1);
  };
  const withIndex = await insertEvents();
  const {
    rows: [{ def }],
  } = await c.query(`SELECT pg_get_indexdef('email_events_engagement'::regclass) AS def`);
  await c.query('DROP INDEX email_events_engagement');
  const withoutIndex = await insertEvents();
  t0 = performance.now();
  await c.query(def);
  const buildIndex = +((performance.now() - t0) / 1000).toFixed(1);
  const {
    rows: [{ size }],
  } = await c.query(`SELECT pg_size_pretty(pg_relation_size('email_events_engagement')) AS size`);
  await c.query('ANALYZE email_events');

  const filters: { name: string; filter: unknown; peerWhere: string; peerParams: unknown[] }[] = [
    {
      name: 'plan = pro AND subscribed to News (opt_in topic)',
      filter: { and: [{ field: 'properties.plan', op: 'eq', value: 'pro' }, { topic: news }] },
      peerWhere: `c.properties ->> 'plan' = 'pro' AND NOT EXISTS (SELECT 1 FROM contact_topics ct WHERE ct.contact_id = c.id AND ct.topic_id = $2 AND ct.subscription = 'opt_out')`,
      peerParams: [news],
    },
    {
      name: 'opened in the last 30 days',
      filter: { engagement: 'opened', within_days: 30 },
      peerWhere: `EXISTS (SELECT 1 FROM email_events ev WHERE ev.team_id = c.team_id AND lower(ev.recipient) = c.email AND ev.type = 'email.opened' AND ev.created_at >= now() - interval '30 days')`,
      peerParams: [],
    },
    {
      name: 'never clicked',
      filter: { engagement: 'clicked', never: true },
      peerWhere: `NOT EXISTS (SELECT 1 FROM email_events ev WHERE ev.team_id = c.team_id AND lower(ev.recipient) = c.email AND ev.type = 'email.clicked')`,
      peerParams: [],
    },
    {
      name: 'plan = enterprise AND opened in the last 30 days AND in Promos (opt_out topic)',
      filter: {
        and: [
          { field: 'properties.plan', op: 'eq', value: 'enterprise' },
          { engagement: 'opened', within_days: 30 },
          { topic: promos },
        ],
      },
      peerWhere: `c.properties ->> 'plan' = 'enterprise' AND EXISTS (SELECT 1 FROM email_events ev WHERE ev.team_id = c.team_id AND lower(ev.recipient) = c.email AND ev.type = 'email.opened' AND ev.created_at >= now() - interval '30 days')
        AND EXISTS (SELECT 1 FROM contact_topics ct WHERE ct.contact_id = c.id AND ct.topic_id = $2 AND ct.subscription = 'opt_in')`,
      peerParams: [promos],
    },
  ];

  // The HTTP floor on this machine at this moment: an unfiltered page of the same size.
  const results: Record<string, unknown> = {
    [`GET /contacts?limit=${PAGE} (no filter: the HTTP floor)`]: summary(
      await time(() => call('GET', `/contacts?limit=${PAGE}`)),
    ),
  };
  for (const f of filters) {
    const seg = (await call('POST', '/segments', { name: f.name, filter: f.filter })).id as string;
    const page = await call('GET', `/segments/${seg}/contacts?limit=${PAGE}`);
    const peerPage = () =>
      c.query(
        `SELECT c.id, c.email, c.first_name, c.last_name, c.created_at::text AS created_at, c.unsubscribed FROM contacts c
      WHERE c.team_id = $1 AND ${f.peerWhere} ORDER BY c.created_at DESC, c.id DESC LIMIT ${PAGE + 1}`,
        [team, ...f.peerParams],
      );
    const peerCount = async () =>
      (
        await c.query(`SELECT count(*)::int AS n FROM contacts c WHERE c.team_id = $1 AND ${f.peerWhere}`, [
          team,
          ...f.peerParams,
        ])
      ).rows[0].n as number;
    const got = await call('GET', `/segments/${seg}`);
    const shown = await call('POST', '/segments/preview', { filter: f.filter });
    const exact = await peerCount();
    if (
      (await peerPage()).rows[0]?.id !== page.data[0]?.id ||
      shown.count !== exact ||
      got.contacts_count !== Math.min(exact, 10_000)
    ) {
      throw new Error(`${f.name}: Mailroom and the peer disagree`);
    }
    results[f.name] = {
      matching: exact,
      [`GET /segments/:id/contacts?limit=${PAGE} (first page)`]: summary(
        await time(() => call('GET', `/segments/${seg}/contacts?limit=${PAGE}`)),
      ),
      'peer: same page, hand-written SQL': summary(await time(peerPage)),
      'GET /segments/:id (contacts_count capped at 10,000)': summary(
        await time(() => call('GET', `/segments/${seg}`), 10),
      ),
      'POST /segments/preview (exact count + first 10)': summary(
        await time(() => call('POST', '/segments/preview', { filter: f.filter }), 5),
      ),
      'peer: count(*), hand-written SQL': summary(await time(peerCount, 5)),
    };
  }
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        load_before_queries: loadAverage(),
        contacts: N,
        ...counts,
        load_s: { contacts: +(loadContacts / 1000).toFixed(1), topics_and_events: +(loadEvents / 1000).toFixed(1) },
        engagement_index: {
          size,
          build_s: buildIndex,
          insert_100k_events_s: { with_index: withIndex, without_index: withoutIndex },
        },
        page_size: PAGE,
        samples: SAMPLES,
        results,
      },
      null,
      2,
    ),
  );
} finally {
  await c.end();
  await svc.stop();
  // BENCH_KEEP_DB=1 keeps the database for EXPLAIN ANALYZE (drop it by hand afterwards).
  if (process.env.BENCH_KEEP_DB) console.error(`kept ${db.url}`);
  else await db.drop();
}

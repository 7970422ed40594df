// Dashboard lists and metrics with 1,000,000 emails in the database (issue 7): GET /emails first
// page, a deep cursor page, filtered pages, GET /emails/metrics, and the Emails page loaded in
// Chromium. Peers measured in the same run on the same data: the same list query paginated with
// OFFSET, and the metrics aggregation straight from the events with index scans disabled (what it
// costs without 0007's rollup and index).
// Usage: npm run build && node --import tsx bench/dashboard/list-and-metrics.ts [emails] [samples]
import fs from 'node:fs';
import pg from 'pg';
import { freshDb, KEY, machine, startService, latencySummary, timeCalls } from '../lib.js';
import { emailMetricsRollup } from '../../src/store/email-metrics.js';

const N = Number(process.argv[2] ?? 1_000_000);
const SAMPLES = Number(process.argv[3] ?? 30);

const summary = (xs: number[]) => latencySummary(xs, 2);
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
  const get = async (p: string) => {
    const r = await fetch(svc.url + p, { headers: { authorization: `Bearer ${KEY}` } });
    const body = await r.json();
    if (r.status !== 200) throw new Error(`${p}: ${r.status} ${JSON.stringify(body)}`);
    return body;
  };
  const dom = await (
    await fetch(`${svc.url}/domains`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench.example' }),
    })
  ).json();
  const {
    rows: [team],
  } = await c.query('SELECT team_id, id AS key_id FROM api_keys LIMIT 1');

  // 1,000,000 emails over the last 30 days with a realistic mix of outcomes, then their events.
  let t0 = performance.now();
  await c.query(
    `INSERT INTO emails (id, team_id, domain_id, api_key_id, message_id, from_header, to_addrs, subject, tags, last_event, created_at)
     SELECT gen_random_uuid(), $1, $2, $3, '<' || g || '@bench.example>', 'Bench <bench@bench.example>', ARRAY['user' || (g % 50000) || '@dest' || (g % 7) || '.test'],
            (ARRAY['Your invoice', 'Welcome aboard', 'Password reset', 'Weekly digest', 'Order shipped'])[1 + g % 5] || ' #' || g,
            CASE WHEN g % 10 = 0 THEN '[{"name":"campaign","value":"spring"}]'::jsonb ELSE '[]'::jsonb END,
            CASE WHEN g % 100 < 2 THEN 'bounced' WHEN g % 1000 = 7 THEN 'complained' WHEN g % 100 < 20 THEN 'opened' WHEN g % 100 < 23 THEN 'clicked' ELSE 'delivered' END,
            now() - (g::float8 / $4) * interval '30 days'
     FROM generate_series(1, $4) AS g`,
    [team.team_id, dom.id, team.key_id, N],
  );
  const loadEmails = performance.now() - t0;
  t0 = performance.now();
  await c.query(
    `INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
     SELECT gen_random_uuid(), e.id, e.team_id, t.type, e.to_addrs[1],
            CASE t.type WHEN 'email.bounced' THEN jsonb_build_object('bounce', jsonb_build_object('type', CASE WHEN right(e.message_id, 3) < '5' THEN 'Permanent' ELSE 'Transient' END)) ELSE '{}'::jsonb END,
            e.created_at + t.delay
     FROM emails e
     CROSS JOIN LATERAL (VALUES ('email.sent', interval '0'), (CASE WHEN e.last_event = 'bounced' THEN 'email.bounced' ELSE 'email.delivered' END, interval '2 seconds'),
                                (CASE WHEN e.last_event IN ('opened', 'clicked') THEN 'email.opened' END, interval '10 minutes'),
                                (CASE WHEN e.last_event = 'clicked' THEN 'email.clicked' END, interval '11 minutes'),
                                (CASE WHEN e.last_event = 'complained' THEN 'email.complained' END, interval '1 hour')) AS t (type, delay)
     WHERE t.type IS NOT NULL`,
  );
  const loadEvents = performance.now() - t0;
  await c.query('VACUUM ANALYZE emails');
  await c.query('VACUUM ANALYZE email_events');
  const counts = (
    await c.query(
      'SELECT (SELECT count(*) FROM emails)::int AS emails, (SELECT count(*) FROM email_events)::int AS events',
    )
  ).rows[0];
  // What the worker's rollup job (every minute) would have kept up to date: catch up on 30 days at once.
  const pool = new pg.Pool({ connectionString: db.url, options: '-c TimeZone=UTC', max: 2 });
  t0 = performance.now();
  const rolledHours = await emailMetricsRollup(pool, 24 * 40);
  const rollupS = +((performance.now() - t0) / 1000).toFixed(1);
  await pool.end();

  const deepOffset = Math.floor(N * 0.9);
  const {
    rows: [deep],
  } = await c.query('SELECT id FROM emails WHERE team_id = $1 ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 1', [
    team.team_id,
    deepOffset,
  ]);
  const cols = `id, message_id, to_addrs AS "to", from_header AS "from", created_at::text AS created_at, subject, bcc_addrs AS bcc, cc_addrs AS cc, reply_to, last_event, scheduled_at::text AS scheduled_at`;
  const offsetQuery = (offset: number) =>
    c.query(
      `SELECT ${cols} FROM emails WHERE team_id = $1 ORDER BY emails.created_at DESC, emails.id DESC OFFSET $2 LIMIT 51`,
      [team.team_id, offset],
    );
  const week = `start_date=${new Date(Date.now() - 7 * 86400_000).toISOString()}&end_date=${new Date().toISOString()}`;
  const month = `start_date=${new Date(Date.now() - 30 * 86400_000).toISOString()}&end_date=${new Date().toISOString()}`;
  const metricsSql = `SELECT date_trunc('day', created_at) AS p, type, count(*) FROM email_events WHERE team_id = $1 AND type = ANY($2) AND created_at >= $3 AND created_at < $4 GROUP BY 1, 2`;
  const types = ['email.sent', 'email.delivered', 'email.bounced', 'email.complained', 'email.opened', 'email.clicked'];

  const results: Record<string, unknown> = {
    'GET /emails?limit=50 (first page)': summary(await time(() => get('/emails?limit=50'))),
    [`GET /emails?limit=50&after=<row ${deepOffset}> (deep cursor page)`]: summary(
      await time(() => get(`/emails?limit=50&after=${deep.id}`)),
    ),
    'peer: same list query, OFFSET 0 (SQL only)': summary(await time(() => offsetQuery(0))),
    [`peer: same list query, OFFSET ${deepOffset} (SQL only)`]: summary(
      await time(() => offsetQuery(deepOffset), Math.min(SAMPLES, 10)),
    ),
    'GET /emails?status=bounced&limit=50': summary(await time(() => get('/emails?status=bounced&limit=50'))),
    'GET /emails?q=user123@dest4.test (recipient)': summary(
      await time(() => get('/emails?q=user123@dest4.test&limit=50')),
    ),
    'GET /emails?q=password (subject word)': summary(await time(() => get('/emails?q=password&limit=50'))),
    'GET /emails?tag=campaign:spring': summary(await time(() => get('/emails?tag=campaign:spring&limit=50'))),
    'GET /emails/metrics 7 days, daily, dimensions=period': summary(
      await time(() => get(`/emails/metrics?${week}&dimensions=period`), 10),
    ),
    'GET /emails/metrics 30 days, daily, dimensions=period': summary(
      await time(() => get(`/emails/metrics?${month}&dimensions=period`), 10),
    ),
    'GET /emails/metrics 30 days, counts only (metrics=sent,delivered,bounced,complained,opened,clicked)': summary(
      await time(
        () =>
          get(`/emails/metrics?${month}&dimensions=period&metrics=sent,delivered,bounced,complained,opened,clicked`),
        10,
      ),
    ),
    'peer: 30-day count query, index scans off (seq scan)': summary(
      await time(async () => {
        await c.query('BEGIN');
        await c.query(
          'SET LOCAL enable_indexscan = off; SET LOCAL enable_indexonlyscan = off; SET LOCAL enable_bitmapscan = off',
        );
        await c.query(metricsSql, [team.team_id, types, new Date(Date.now() - 30 * 86400_000), new Date()]);
        await c.query('COMMIT');
      }, 5),
    ),
  };

  // The Emails page in Chromium: navigation until the first rows are on screen (session sign-in first).
  if (fs.existsSync('/usr/bin/chromium')) {
    const { chromium } = await import('playwright-core');
    await fetch(`${svc.url}/dashboard-api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench@example.com', password: 'bench-password-1' }),
    });
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--disable-quic',
        '--no-first-run',
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(`${svc.url}/dashboard/login`);
    await page.getByLabel('Email').fill('bench@example.com');
    await page.getByLabel('Password').fill('bench-password-1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('table.list tbody tr').first().waitFor();
    const loads = await time(async () => {
      await page.goto(`${svc.url}/dashboard/emails`);
      await page.locator('table.list tbody tr').nth(49).waitFor();
    }, 10);
    results['Emails page in Chromium: navigation to 50 rows shown'] = summary(loads);
    await browser.close();
  }

  console.log(
    JSON.stringify(
      {
        machine: machine(),
        rows: counts,
        load_s: {
          emails: +(loadEmails / 1000).toFixed(1),
          events: +(loadEvents / 1000).toFixed(1),
          rollup_catch_up: rollupS,
          rolled_hours: rolledHours,
        },
        samples: SAMPLES,
        results,
        peak_rss_mb: svc.peakRssMb(),
      },
      null,
      2,
    ),
  );
} finally {
  await c.end();
  await svc.stop();
  await db.drop();
}

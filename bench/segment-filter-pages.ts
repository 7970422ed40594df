// Re-measures only the first pages of the filter segments on a database kept by
// `BENCH_KEEP_DB=1 node --import tsx bench/segment-filter.ts 1000000` (no new seeding): through HTTP
// (GET /segments/:id/contacts?limit=50, the windowed walk) and, as the peer in the same run, the same
// filter as one plain SQL query (the compiled filter in a single ORDER BY ... LIMIT, the old path).
// Usage: npm run build && node --import tsx bench/segment-filter-pages.ts <database url> [samples]
import pg from 'pg';
import { CONTACT_LIST_COLUMNS } from '../src/store/contacts.js';
import { paginate } from '../src/store/paginate.js';
import { filterSql, topicDefaultsFind } from '../src/store/segment-filter.js';
import { KEY, latencySummary, loadAverage, machine, startService, timeCalls } from './lib.js';

const url = process.argv[2];
const SAMPLES = Number(process.argv[3] ?? 20);
if (!url) throw new Error('usage: bench/segment-filter-pages.ts <database url> [samples]');
const pool = new pg.Pool({ connectionString: url, options: '-c TimeZone=UTC' });
const svc = await startService({
  MAILROOM_DATABASE_URL: url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_ROLES: 'api',
  MAILROOM_DELIVERY_MODE: 'capture',
  MAILROOM_RATE_LIMIT: '1000000',
});
try {
  const team = (await pool.query('SELECT team_id FROM api_keys LIMIT 1')).rows[0].team_id as string;
  const segs = (await pool.query('SELECT id, name, filter FROM segments WHERE filter IS NOT NULL ORDER BY created_at'))
    .rows;
  const get = async (p: string) => {
    const r = await fetch(svc.url + p, { headers: { authorization: `Bearer ${KEY}` } });
    if (r.status !== 200) throw new Error(`${p}: ${r.status}`);
    return r.json() as Promise<{ data: { id: string }[] }>;
  };
  const results: Record<string, unknown> = { load_before: loadAverage() };
  for (const s of segs) {
    const params: unknown[] = [];
    const where = filterSql(s.filter, await topicDefaultsFind(pool, team, s.filter), params);
    const plain = () =>
      paginate<{ id: string }>(pool, {
        table: 'contacts',
        columns: CONTACT_LIST_COLUMNS,
        teamId: team,
        page: { limit: 50 },
        where,
        params,
      });
    const a = await get(`/segments/${s.id}/contacts?limit=50`);
    const b = await plain();
    if (JSON.stringify(a.data.map((r) => r.id)) !== JSON.stringify(b.data.map((r) => r.id)))
      throw new Error(`${s.name}: HTTP and the plain query disagree`);
    results[s.name] = {
      'first page through HTTP (windowed walk)': latencySummary(
        await timeCalls(() => get(`/segments/${s.id}/contacts?limit=50`), SAMPLES),
        1,
      ),
      'peer: one plain SQL query (the old path)': latencySummary(await timeCalls(plain, SAMPLES), 1),
    };
  }
  results.load_after = loadAverage();
  console.log(JSON.stringify({ machine: machine(), samples: SAMPLES, results }, null, 2));
} finally {
  await svc.stop();
  await pool.end();
}

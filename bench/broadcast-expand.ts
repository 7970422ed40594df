// Broadcast expansion (issue #14: >= 10,000 recipients/s turned into queued emails): N contacts of
// a segment turned into personalized emails (first name, a property, the unsubscribe link, ~3.5 KB
// html) by the broadcasts.expand job, every row committed (email, `email.sent` event, delivery
// job), while the same process delivers them in capture mode (no pacing window). In-process (test
// harness, api + worker roles, a fresh database). Also `POST /broadcasts/:id/send`'s answer time
// for the N-contact segment. Peer in the same run: a bare `INSERT ... SELECT` copying the same N
// email rows inside PostgreSQL. Usage:
//   MAILROOM_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/broadcast-expand.ts [contacts=100000] [page=500] [alone|send]
import { startTestApp } from '../test/helpers/harness.js';
import { latencySummary, loadAverage, machine, postgresCpuSeconds } from './lib.js';
import { Worker } from '../src/queue/worker.js';
import { BROADCAST_EXPAND_JOB } from '../src/store/jobs.js';
import { broadcastExpandJob } from '../src/broadcasts/expand.job.js';

const N = Number(process.argv[2] ?? 100_000);
const PAGE = Number(process.argv[3] ?? 500);
// `alone`: the api role plus a worker that runs only the expansion job, so the emails stay queued
// and expansion is measured without the deliveries competing for the two cores.
const ALONE = process.argv[4] === 'alone';
const t = await startTestApp({
  deliveryMode: 'capture',
  broadcastQueueWindow: 1_000_000,
  broadcastPageSize: PAGE,
  ...(ALONE ? { roles: ['api'] } : {}),
});
const worker = ALONE
  ? new Worker({
      pool: t.db.pool,
      log: t.app.log,
      handlers: {
        [BROADCAST_EXPAND_JOB]: broadcastExpandJob({
          pool: t.db.pool,
          accept: t.app.accept,
          config: t.app.config,
          log: t.app.log,
        }),
      },
    })
  : undefined;
await worker?.start();
// BENCH_QUERY_TIMES=1: the time spent in each statement (by its first 80 characters), printed at the end.
const qtimes = new Map<string, { n: number; ms: number }>();
if (process.env.BENCH_QUERY_TIMES) {
  const wrap = (o: any) => {
    const orig = o.query.bind(o);
    o.query = (...args: any[]) => {
      const t0 = performance.now();
      const k = String(typeof args[0] === 'string' ? args[0] : args[0]?.text)
        .replace(/\s+/g, ' ')
        .slice(0, 80);
      const done = () => {
        const e = qtimes.get(k) ?? { n: 0, ms: 0 };
        e.n++;
        e.ms += performance.now() - t0;
        qtimes.set(k, e);
      };
      const r = orig(...args);
      if (r && typeof r.then === 'function') r.then(done, done);
      return r;
    };
  };
  wrap(t.db.pool);
  const connect = t.db.pool.connect.bind(t.db.pool);
  const once = (c: any) => {
    if (c && !c.__wrapped) {
      wrap(c);
      c.__wrapped = true;
    }
    return c;
  };
  (t.db.pool as any).connect = (cb?: any) =>
    typeof cb === 'function'
      ? connect((err: any, c: any, release: any) => cb(err, once(c), release))
      : connect().then(once);
}
try {
  await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
  const seg = (await t.resend.segments.create({ name: 'All' })).data!.id;
  await t.resend.contactProperties.create({ key: 'city', type: 'string', fallbackValue: 'your town' });
  await t.db.pool.query(
    `WITH c AS (INSERT INTO contacts (id, team_id, email, first_name, properties, created_at)
       SELECT gen_random_uuid(), $1, 'u' || i || '@dest.test', 'U' || i, jsonb_build_object('city', 'C' || (i % 100)), now() - (($2 - i) * interval '1 millisecond')
       FROM generate_series(1, $2) i RETURNING id)
     INSERT INTO contact_segments (contact_id, segment_id) SELECT id, $3 FROM c`,
    [t.app.defaultTeamId, N, seg],
  );
  await t.db.pool.query('VACUUM ANALYZE contacts');
  await t.db.pool.query('VACUUM ANALYZE contact_segments');
  const html =
    '<p>Hello {{{contact.first_name|there}}} from {{{contact.city}}}</p>' +
    '<p>Lorem ipsum dolor sit amet.</p>'.repeat(100) +
    '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>';
  if (process.argv[4] === 'send') {
    // `send`: only POST /broadcasts/:id/send's answer for the N-contact segment, 10 times (each
    // broadcast canceled at once), no expansion measured.
    const ms: number[] = [];
    for (let i = 0; i < 10; i++) {
      const d = await t.resend.broadcasts.create({
        segmentId: seg,
        from: 'n@example.com',
        subject: 'Hi {{{FIRST_NAME}}}',
        html,
      });
      const s0 = performance.now();
      const r = await t.api('POST', `/broadcasts/${d.data!.id}/send`, { body: {} });
      ms.push(performance.now() - s0);
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      await t.api('POST', `/broadcasts/${d.data!.id}/cancel`, { body: {} });
    }
    console.log(
      JSON.stringify({
        machine: machine(),
        contacts: N,
        send_answer: latencySummary(ms),
        samples: ms.map(Math.round),
        load: loadAverage(),
      }),
    );
    process.exit(0);
  }
  const draft = await t.resend.broadcasts.create({
    segmentId: seg,
    from: 'n@example.com',
    subject: 'Hi {{{FIRST_NAME}}}',
    html,
  });
  const id = draft.data!.id;
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpuSeconds();
  const t0 = performance.now();
  const sent = await t.api('POST', `/broadcasts/${id}/send`, { body: {} });
  const sendMs = performance.now() - t0;
  let looks = 0;
  if (sent.status !== 200) throw new Error(JSON.stringify(sent.body));
  for (;;) {
    const r = (await t.db.pool.query('SELECT status FROM broadcasts WHERE id = $1', [id])).rows[0];
    if (r.status === 'sent') break;
    if (performance.now() - t0 > 1_800_000) throw new Error(`not expanded after 30 min: ${JSON.stringify(r)}`);
    // The bench's own looks cost PostgreSQL time the expansion competes for: the failed-job check
    // reads the jobs table (a delivery job per 10 copies), so it runs once a second, not per look.
    if (++looks % 20 === 0) {
      const failing = (
        await t.db.pool.query(`SELECT last_error FROM jobs WHERE kind = 'broadcasts.expand' AND attempts > 1`)
      ).rows[0];
      if (failing) throw new Error(`the expansion job fails: ${failing.last_error}`);
    }
    await new Promise((res) => setTimeout(res, 50));
  }
  const expandMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const pgCpu = postgresCpuSeconds() - pg0;
  const load = loadAverage();
  const counts = (
    await t.db.pool.query(
      `SELECT (SELECT count(*) FROM emails WHERE broadcast_id = $1)::int AS emails,
            (SELECT count(*) FROM email_events WHERE data->>'broadcast_id' = $1::text AND type = 'email.sent')::int AS sent_events,
            (SELECT count(DISTINCT lower(to_addrs[1])) FROM emails WHERE broadcast_id = $1)::int AS distinct_addresses`,
      [id],
    )
  ).rows[0];
  const t1 = performance.now();
  await t.db.pool.query(
    `INSERT INTO emails (id, team_id, domain_id, source, message_id, from_header, to_addrs, reply_to, subject, headers, last_event, created_at, topic_id,
                         list_unsubscribe, list_id, personalization, html, text_body, raw)
     SELECT gen_random_uuid(), team_id, domain_id, 'bench', message_id || 'x', from_header, to_addrs, reply_to, subject, headers, last_event, created_at, topic_id,
            list_unsubscribe, list_id, personalization, html, text_body, raw
     FROM emails WHERE broadcast_id = $1`,
    [id],
  );
  const bareMs = performance.now() - t1;
  console.log(
    JSON.stringify(
      {
        machine: machine(),
        contacts: N,
        page: PAGE,
        deliveries_alongside: !ALONE,
        send_answer_ms: Math.round(sendMs),
        expansion_ms: Math.round(expandMs),
        recipients_per_s: Math.round(N / (expandMs / 1000)),
        node_cpu_us_per_recipient: Math.round((cpu.user + cpu.system) / N),
        postgres_cpu_us_per_recipient: Math.round((pgCpu * 1e6) / N),
        ...counts,
        bare_insert_select_ms: Math.round(bareMs),
        bare_rows_per_s: Math.round(N / (bareMs / 1000)),
        ratio_expansion_to_bare: Number((bareMs / expandMs).toFixed(2)),
        load_during: load,
        load_after: loadAverage(),
      },
      null,
      2,
    ),
  );
  if (process.env.BENCH_QUERY_TIMES)
    for (const [k, v] of [...qtimes].sort((a, b) => b[1].ms - a[1].ms).slice(0, 25))
      console.error(v.n, Math.round(v.ms), k);
} finally {
  await worker?.stop();
  await t.close();
}

// Where deliverability insights cost CPU (issue 16 target: at most 100 us per email on the send
// path, or off the request path). The compose rules now run off the request path (the delivery job
// at an email's first attempt, or the first GET /emails/:id/insights before it). Two measurements
// in one run:
//  1. in process, the worker's cost per email: ComposeInsights.of (facts from the stored row,
//     the tracked HTML when the domain tracks, every compose rule) + JSON of the findings, for the
//     send benchmark's small email, a 16 KB newsletter (60 links, 15 images) and an 88 KB one,
//     beside validate + compose of the same email (the send path's own work, as the peer);
//  2. the request path: the service (api role only, capture mode) under the send benchmark's load
//     (64 connections of POST /emails), the small email and the 88 KB newsletter, alternately with
//     MAILROOM_INSIGHTS=true and =false: the service's CPU per email in each, the difference, and
//     how many stored emails were analyzed on the request path (must be 0).
// Usage: npm run build && node --import tsx bench/insights.ts [seconds per service run]
import autocannon from 'autocannon';
import { allAnswered, api, cpuSeconds, freshDb, KEY, loadAverage, machine, startService } from './lib.js';
import { validateSendRequest } from '../src/emails/validate.js';
import { composeMessage } from '../src/emails/compose.js';
import { ComposeInsights } from '../src/insights/compose-insights.js';
import type { Config } from '../src/config/schema.js';
import pg from 'pg';

const seconds = Number(process.argv[2] ?? 10);
const SMALL = {
  from: 'Bench <bench@bench.example>',
  to: 'sink@sink.test',
  subject: 'Benchmark',
  html: '<p>Hello <b>there</b>, this is a small benchmark email.</p>',
};

function newsletter(paragraphs: number) {
  const links = [
    'https://bench.example/a',
    'https://www.bench.example/b',
    'https://docs.other.test/c',
    'https://bit.ly/x1',
    'https://twitter.com/bench',
  ];
  let html =
    '<!doctype html><html><head><style>body{font-family:sans-serif}.c{max-width:600px}</style></head><body><div class="c">';
  for (let i = 0; i < paragraphs; i++) {
    html += `<h2>Story ${i}</h2><p>Lorem ipsum dolor sit amet, consectetur adipiscing elit ${i}, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.
      Read <a href="${links[i % links.length]}?utm_source=news&amp;i=${i}">more about story ${i}</a>.</p>`;
    if (i % 4 === 0) html += `<img src="https://cdn.bench.example/img/${i}.png" alt="Story ${i}" width="600">`;
  }
  html += '<p><a href="https://bench.example/unsubscribe">Unsubscribe</a></p></div></body></html>';
  return { ...SMALL, subject: 'November news', html };
}

const now = new Date();
const DOMAIN = {
  name: 'bench.example',
  tracking_subdomain: null,
  record_status: { dkim: { status: 'verified' as const, checked_at: now.toISOString() } },
  open_tracking: false,
  click_tracking: false,
};
const insightsOf = new ComposeInsights({ publicUrl: 'http://mailroom.bench' } as Config);

function cpuPerCall(fn: () => unknown, n: number): number {
  for (let i = 0; i < Math.min(n, 2000); i++) fn(); // warm-up (JIT)
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n; // microseconds
}

async function cpuPerCallAsync(fn: () => Promise<unknown>, n: number): Promise<number> {
  for (let i = 0; i < Math.min(n, 500); i++) await fn();
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

async function inProcess() {
  const out: Record<string, unknown> = {};
  for (const [name, body, n] of [
    ['small (send benchmark email)', SMALL, 50_000],
    ['newsletter 16 KB', newsletter(60), 5_000],
    ['newsletter 88 KB', newsletter(330), 1_000],
  ] as const) {
    const req = validateSendRequest(body, { allowAttachments: false, now });
    // The row as the send path stores it and the delivery job loads it.
    const row = {
      id: '3f1c2a9e-8f1e-4a51-9d9b-2f1b5a1c0e11',
      source: 'api',
      from_header: body.from,
      reply_to: [],
      subject: req.subject,
      html: req.html ?? null,
      text_body: req.text ?? null,
      headers: null,
      list_unsubscribe: false,
    };
    const insights = () => JSON.stringify(insightsOf.of(row, DOMAIN as never));
    const ins = cpuPerCall(insights, n);
    const compose = await cpuPerCallAsync(
      () =>
        composeMessage(validateSendRequest(body, { allowAttachments: false, now }), {
          messageIdDomain: 'bench.example',
          date: now,
        }),
      Math.ceil(n / 5),
    );
    out[name] = {
      html_bytes: Buffer.byteLength(body.html),
      findings: JSON.parse(insights()).map((f: { id: string }) => f.id),
      worker_insights_cpu_us: +ins.toFixed(1),
      validate_and_compose_cpu_us: +compose.toFixed(1),
      ratio: +(ins / compose).toFixed(2),
    };
  }
  return out;
}

async function service(insights: boolean, url: string, pid: number, body: string) {
  const c0 = cpuSeconds(pid);
  const r = await autocannon({
    url: `${url}/emails`,
    method: 'POST',
    connections: 64,
    duration: seconds,
    body,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
  });
  allAnswered(`POST /emails (insights ${insights})`, r);
  const cpu = cpuSeconds(pid) - c0;
  const ok = r.requests.total - r.non2xx - r.errors;
  return {
    insights,
    emails_per_s: Math.round(ok / seconds),
    p99_ms: r.latency.p99,
    non2xx: r.non2xx,
    api_cpu_us_per_email: Math.round((cpu / ok) * 1e6),
    load: loadAverage(),
  };
}

async function serviceRuns(name: string, email: object) {
  const body = JSON.stringify(email);
  const runs: Awaited<ReturnType<typeof service>>[] = [];
  let analyzedOnRequestPath = 0;
  let stored = 0;
  for (const insights of [true, false, true, false]) {
    const db = await freshDb();
    const svc = await startService({
      MAILROOM_DATABASE_URL: db.url,
      MAILROOM_BOOTSTRAP_API_KEY: KEY,
      MAILROOM_ROLES: 'api',
      MAILROOM_DELIVERY_MODE: 'capture',
      MAILROOM_RATE_LIMIT: '1000000',
      MAILROOM_RECIPIENT_RATE_LIMIT: '100000000',
      MAILROOM_INSIGHTS: String(insights),
    });
    try {
      const dom = await api(svc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
      await api(svc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
      allAnswered(
        'warm-up',
        await autocannon({
          url: `${svc.url}/emails`,
          method: 'POST',
          connections: 8,
          duration: 3,
          body,
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        }),
      );
      runs.push(await service(insights, svc.url, svc.proc.pid!, body));
      // No worker runs in this service: any insights stored were computed on the request path.
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      const { rows } = await c.query<{ analyzed: number; total: number }>(
        'SELECT count(insights)::int AS analyzed, count(*)::int AS total FROM emails',
      );
      await c.end();
      if (insights) {
        analyzedOnRequestPath += rows[0].analyzed;
        stored += rows[0].total;
      }
    } finally {
      await svc.stop();
      await db.drop();
    }
  }
  const mean = (on: boolean) =>
    runs.filter((r) => r.insights === on).reduce((s, r) => s + r.api_cpu_us_per_email, 0) / 2;
  return {
    email: name,
    runs,
    api_cpu_us_per_email_on: mean(true),
    api_cpu_us_per_email_off: mean(false),
    difference_us: Math.round(mean(true) - mean(false)),
    emails_stored_with_insights_on: stored,
    of_them_analyzed_on_the_request_path: analyzedOnRequestPath,
  };
}

console.log(
  JSON.stringify(
    {
      machine: machine(),
      in_process_worker: await inProcess(),
      request_path: [
        await serviceRuns('small (send benchmark email)', SMALL),
        await serviceRuns('newsletter 88 KB', newsletter(330)),
      ],
    },
    null,
    2,
  ),
);

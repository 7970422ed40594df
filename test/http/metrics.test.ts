import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startCaptureApp, type CaptureApp } from '../helpers/capture-app.js';
import { startTestApp } from '../helpers/harness.js';
import { Registry } from '../../src/lib/metrics.js';

/** Prometheus text → {"name{labels}": value} (the exposition format's sample lines). */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{.*\})?) (\S+)$/.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    out.set(m[1], Number(m[2]));
  }
  return out;
}

describe('GET /metrics (Prometheus)', () => {
  let t: CaptureApp;
  before(async () => {
    t = await startCaptureApp({ metricsToken: 'scrape-secret' });
  });
  after(async () => {
    await t.close();
  });

  test('needs the bearer token: none is 401, a wrong one 403, in Resend-shaped errors', async () => {
    const none = await fetch(`${t.url}/metrics`);
    assert.equal(none.status, 401);
    assert.equal((await none.json()).name, 'missing_api_key');
    const wrong = await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer scrape-secreT' } });
    assert.equal(wrong.status, 403);
    const apiKey = await fetch(`${t.url}/metrics`, { headers: { authorization: `Bearer ${t.key}` } });
    assert.equal(apiKey.status, 403, 'an API key is not the metrics token');
  });

  test('counts requests, deliveries and the queue; every line is a valid sample', async () => {
    const before = samples(
      await (await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } })).text(),
    );
    const key = 'mailroom_http_requests_total{method="POST",route="/emails",status="200"}';
    await t.send();
    await t.send();
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer scrape-secret' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^# TYPE mailroom_http_requests_total counter$/m);
    const s = samples(text);
    assert.equal((s.get(key) ?? 0) - (before.get(key) ?? 0), 2);
    assert.ok(s.get('process_resident_memory_bytes')! > 10_000_000);
    assert.ok(s.get('process_cpu_seconds_total')! > 0);
    // V8 heap reserved >= in use, and the memory outside it (Buffers are part of the external memory)
    assert.ok(s.get('nodejs_heap_size_total_bytes')! >= s.get('nodejs_heap_used_bytes')!);
    assert.ok(s.get('nodejs_external_memory_bytes')! >= s.get('nodejs_array_buffers_bytes')!);
    assert.ok(s.get('nodejs_array_buffers_bytes')! > 0);
    assert.ok(
      [...s.keys()].some((k) => k.startsWith('mailroom_jobs{kind=')),
      'queue depth from the database',
    );
    assert.ok(s.has('nodejs_eventloop_delay_seconds{quantile="0.99"}'));
  });
});

test('without MAILROOM_METRICS_TOKEN the endpoint does not exist (404)', async () => {
  const t = await startTestApp();
  try {
    const res = await fetch(`${t.url}/metrics`, { headers: { authorization: 'Bearer x' } });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).name, 'not_found');
  } finally {
    await t.close();
  }
});

test('label values are escaped and a family stops growing at its series cap', () => {
  const r = new Registry();
  const c = r.counter('x_total', 'help with a \\ backslash');
  c.inc({ v: 'a"b\\c\nd' }, 2);
  for (let i = 0; i < 1000; i++) c.inc({ v: String(i) });
  const text = r.render();
  assert.match(text, /^x_total\{v="a\\"b\\\\c\\nd"\} 2$/m);
  assert.equal(text.split('\n').filter((l) => l.startsWith('x_total{')).length, 500);
  assert.match(text, /^# HELP x_total help with a \\\\ backslash$/m);
});

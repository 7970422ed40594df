import { randomUUID } from 'node:crypto';
import { abSide, abSideEnd, ticksOf } from './pg-ab-lib.js';
import { webhookAttemptsRecord, type AttemptRecord } from '../src/store/webhook-messages.js';
const s = await abSide();
const wh = randomUUID();
await s.setup.query(`INSERT INTO webhooks (id, team_id, endpoint, events, secret_sealed) VALUES ($1, $2, 'http://127.0.0.1:9/x', '{email.sent}', 'x')`, [wh, s.team]);
const N = 120_000;
await s.setup.query(`INSERT INTO webhook_messages (id, webhook_id, team_id, event_id, event_seq, type, status, next_attempt_at, created_at)
  SELECT 'msg_' || i, $1::uuid, $2::uuid, gen_random_uuid(), i, 'email.sent', 'pending', now(), now() FROM generate_series(1, $3::int) i`, [wh, s.team, N]);
await s.setup.query('VACUUM ANALYZE webhook_messages');
let next = 1;
const body = JSON.stringify({ type: 'email.sent', created_at: new Date().toISOString(), data: { email_id: randomUUID(), from: 'Bench <bench@bench.example>', to: ['someone@example.com'], subject: 'Benchmark message subject', created_at: new Date().toISOString(), tags: { k: 'v' } } });
const rec = (): AttemptRecord => {
  const id = `msg_${next++}`;
  return { message_id: id, attempt_id: `att_${randomUUID()}`, status: 'success', next_attempt_at: null, sent_at: new Date().toISOString(), endpoint: 'http://127.0.0.1:9/x',
    request_headers: { 'content-type': 'application/json', 'user-agent': 'Mailroom-Webhooks/1', 'webhook-id': id, 'webhook-timestamp': '1764345600', 'webhook-signature': `v1,${randomUUID()}${randomUUID()}` },
    request_body: body, response_status: 200, response_body: 'ok', duration_ms: 3, error_type: null, error_message: null };
};
const o = { anySuccess: true, firstFailureAt: null, disable: null, disableAfterMs: 1e9 };
const sizes = (process.env.SIZES ?? "1,4,12,48,333").split(",").map(Number);
const res = new Map<number, { t: number; n: number; calls: number }>(sizes.map((k) => [k, { t: 0, n: 0, calls: 0 }]));
for (let round = 0; round < Number(process.env.ROUNDS ?? 6); round++) {
  for (const k of round % 2 ? [...sizes].reverse() : sizes) {
    const calls = Math.max(2, Math.floor(3000 / k));
    const batches = Array.from({ length: calls }, () => Array.from({ length: k }, rec));
    const t = await ticksOf(s, async () => { for (const b of batches) await webhookAttemptsRecord(s.c, wh, s.team, b, o); });
    const r = res.get(k)!; r.t += t; r.n += calls * k; r.calls += calls;
  }
}
for (const [k, r] of res) console.log(`batch ${k}: ${(r.t * 10000 / r.n).toFixed(1)} µs/message, ${(r.t * 10000 / r.calls).toFixed(0)} µs/call`);
console.log('used', next);
await abSideEnd(s);

// One run of an endpoint's delivery job (webhooks/deliver.job.ts) against a receiver on 127.0.0.1:
// it reads due messages batch after batch (each read going on past the last message taken) and
// sends each once, in the events' order; when its job's lease is lost (the signal) it starts no
// further request, records what was sent, and leaves the rest due for the next run, which sends
// each of them once. A busy endpoint's run waits for more before it ends; a quiet one does not.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { uuid } from '../../src/lib/ids.js';
import { Sealer } from '../../src/lib/crypto.js';
import { createLogger } from '../../src/lib/log.js';
import { loadConfig } from '../../src/config/load.js';
import { makeEvent } from '../../src/events/email-events.js';
import { emailEventsInsert } from '../../src/store/emails.js';
import { WEBHOOK_DELIVER_JOB } from '../../src/store/webhook-outbox.js';
import { webhookDeliverJob } from '../../src/webhooks/deliver.job.js';
import { WebhookHttp } from '../../src/webhooks/http-post.js';
import { newSigningSecret } from '../../src/webhooks/signature.js';
import type { Job } from '../../src/queue/worker.js';

let db: TestDatabase;
let server: http.Server;
const received: string[] = [];
let delayMs = 0;
let onRequest: () => void = () => {};
let gate: Promise<unknown> = Promise.resolve(); // answers wait for it (a test's writes made meanwhile)
const teamId = uuid();
const sealer = new Sealer('deliver-run-test');
const log = createLogger('silent');
// One request at a time (batches of 4, doubling), so that the receiver sees the order they start in.
const config = loadConfig({}, { webhookConcurrency: 1, webhookTimeoutMs: 5_000, allowPrivateNetworks: true });
const httpClient = new WebhookHttp({ allowPrivateNetworks: true, timeoutMs: 5_000, maxSockets: 1 });

before(async () => {
  db = await freshDatabase();
  server = http.createServer((req, res) => {
    received.push(String(req.headers['webhook-id']));
    onRequest();
    req.resume();
    req.on('end', () => void gate.then(() => setTimeout(() => res.writeHead(200).end('ok'), delayMs)));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [teamId, 'runs']);
});
after(async () => {
  httpClient.close();
  server.close();
  await db.drop();
});

/** An endpoint with `n` due messages, one per email.delivered event, in event order. */
async function endpointWithMessages(n: number): Promise<{ webhookId: string; ids: string[] }> {
  const webhookId = uuid();
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  await db.pool.query(
    `INSERT INTO webhooks (id, team_id, endpoint, events, secret_sealed) VALUES ($1, $2, $3, '{email.delivered}', $4)`,
    [webhookId, teamId, url, sealer.seal(newSigningSecret())],
  );
  return { webhookId, ids: await addMessages(webhookId, n) };
}

/** `n` more due messages for an endpoint (their events after every earlier one's). */
async function addMessages(webhookId: string, n: number, tag = 'run'): Promise<string[]> {
  const email = {
    id: uuid(),
    team_id: teamId,
    created_at: new Date(),
    from_header: 'Acme <hello@example.com>',
    to_addrs: ['alice@dest.test'],
    subject: 'Runs',
    message_id: '<runs@example.com>',
    tags: [],
    headers: null,
  };
  await db.pool.query(
    `INSERT INTO emails (id, team_id, message_id, from_header, to_addrs, subject, last_event) VALUES ($1, $2, $3, $4, $5, $6, 'sent')`,
    [email.id, teamId, email.message_id, email.from_header, email.to_addrs, email.subject],
  );
  const events = Array.from({ length: n }, () => makeEvent(email, 'email.delivered', { recipient: 'alice@dest.test' }));
  await emailEventsInsert(db.pool, events);
  const ids = events.map((_, i) => `msg_${tag}_${webhookId.slice(0, 8)}_${String(i).padStart(3, '0')}`);
  await db.pool.query(
    `INSERT INTO webhook_messages (id, webhook_id, team_id, event_id, event_seq, type, status, next_attempt_at, created_at)
     SELECT x.id, $2, $3, x.event_id, (SELECT coalesce(max(event_seq), 0) FROM webhook_messages) + x.n, 'email.delivered', 'pending', now() - interval '1 second', now()
     FROM unnest($1::text[], $4::uuid[]) WITH ORDINALITY AS x (id, event_id, n)`,
    [ids, webhookId, teamId, events.map((e) => e.id)],
  );
  return ids;
}

const job = (webhookId: string): Job<{ webhook_id: string }> => ({
  id: '0',
  kind: WEBHOOK_DELIVER_JOB,
  payload: { webhook_id: webhookId },
  key: null,
  region: null,
  runAt: new Date(),
  attempt: 1,
  maxAttempts: null,
  recurring: false,
  createdAt: new Date(),
});

const states = async (ids: string[]) =>
  (
    await db.pool.query<{ id: string; status: string; attempts: number }>(
      'SELECT id, status, attempts FROM webhook_messages WHERE id = ANY($1) ORDER BY id',
      [ids],
    )
  ).rows;

test('a run sends every due message once, in order, batch after batch, and records each', async () => {
  const deliver = webhookDeliverJob({ pool: db.pool, config, sealer, http: httpClient, log });
  const { webhookId, ids } = await endpointWithMessages(45); // batches of 4, 8, 16, 32: several reads
  received.length = 0;
  delayMs = 0;
  const outcome = await deliver(job(webhookId), { workerId: 'w1', log, signal: new AbortController().signal });
  assert.equal(outcome, undefined);
  assert.deepEqual(received, ids, 'each once, in the events’ order');
  assert.ok((await states(ids)).every((m) => m.status === 'success' && m.attempts === 1));
  const attempts = await db.pool.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE message_id = ANY($1)', [
    ids,
  ]);
  assert.equal(attempts.rows[0].n, 45);
});

test('once the lease is lost no request starts; the rest stay due and the next run sends each once', async () => {
  const deliver = webhookDeliverJob({ pool: db.pool, config, sealer, http: httpClient, log });
  const { webhookId, ids } = await endpointWithMessages(30);
  received.length = 0;
  delayMs = 20;
  const lease = new AbortController();
  onRequest = () => {
    if (received.length === 5) lease.abort(new Error('lease lost'));
  };
  const outcome = await deliver(job(webhookId), { workerId: 'w1', log, signal: lease.signal });
  onRequest = () => {};
  assert.ok(outcome && 'retryAt' in outcome, 'the run gives its job back');
  assert.equal(received.length, 5, 'the request in flight when the lease went finishes, no other starts');
  const after1 = await states(ids);
  assert.deepEqual(
    after1.filter((m) => m.status === 'success').map((m) => m.id),
    received,
    'what was sent is recorded',
  );
  assert.ok(
    after1.filter((m) => m.status === 'pending').every((m) => m.attempts === 0),
    'the rest untouched',
  );
  delayMs = 0;
  assert.equal(await deliver(job(webhookId), { workerId: 'w2', log, signal: new AbortController().signal }), undefined);
  assert.deepEqual(received, ids, 'the next run sends the rest, each once, in order');
  assert.ok((await states(ids)).every((m) => m.status === 'success' && m.attempts === 1));
});

test('a busy endpoint’s run waits for more once it has sent what was due; a quiet one ends at once', async () => {
  const deliver = webhookDeliverJob({ pool: db.pool, config, sealer, http: httpClient, log });
  // 21 due: batches of 4, 4 and 8 (full; the next is read while a batch's last request runs,
  // before the size doubles), then 5 of 16 asked: every due message taken, and several, so the run
  // waits. 3 more come while it does: the same run sends them (its last batch, 3, is small: it
  // ends without waiting again).
  const { webhookId, ids } = await endpointWithMessages(21);
  received.length = 0;
  delayMs = 0;
  let more: Promise<string[]> | undefined;
  onRequest = () => {
    if (received.length === 21) gate = more = addMessages(webhookId, 3, 'late'); // answered once they are in
  };
  const outcome = await deliver(job(webhookId), { workerId: 'w1', log, signal: new AbortController().signal });
  onRequest = () => {};
  gate = Promise.resolve();
  assert.equal(outcome, undefined);
  const late = await more!;
  assert.deepEqual(
    received,
    [...ids, ...late],
    'the messages that came while the run waited were sent by it, in order',
  );
  assert.ok((await states([...ids, ...late])).every((m) => m.status === 'success' && m.attempts === 1));
  const woken = await db.pool.query('SELECT 1 FROM jobs WHERE kind = $1 AND key = $2', [
    WEBHOOK_DELIVER_JOB,
    webhookId,
  ]);
  assert.equal(woken.rowCount, 0, 'nothing left due: no new run');

  // Two due: a quiet endpoint. Its run ends after sending them, without waiting or reading again;
  // one that comes meanwhile is found by the run's last look, which wakes a new run for it.
  const quiet = await endpointWithMessages(2);
  received.length = 0;
  let third: Promise<string[]> | undefined;
  onRequest = () => {
    if (received.length === 2) gate = third = addMessages(quiet.webhookId, 1, 'third');
  };
  const t0 = Date.now();
  await deliver(job(quiet.webhookId), { workerId: 'w1', log, signal: new AbortController().signal });
  onRequest = () => {};
  gate = Promise.resolve();
  const [thirdId] = await third!;
  assert.deepEqual(received, quiet.ids, 'the run sent the two it read');
  assert.equal((await states([thirdId]))[0].status, 'pending');
  const next = await db.pool.query('SELECT 1 FROM jobs WHERE kind = $1 AND key = $2', [
    WEBHOOK_DELIVER_JOB,
    quiet.webhookId,
  ]);
  assert.equal(next.rowCount, 1, 'the message that came meanwhile has a run of its own');
  assert.ok(Date.now() - t0 < 2_000);
});

// The delivery job's claims (store/webhook-messages.ts): a claim leases messages (a second claim,
// as another process's, does not get them), and a batch claimed ahead and given back unsent is
// due again at once with its attempt uncounted.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { uuid } from '../../src/lib/ids.js';
import { webhookMessagesClaimDue, webhookMessagesReleaseClaim } from '../../src/store/webhook-messages.js';

let db: TestDatabase;
const teamId = uuid();
const webhookId = uuid();

before(async () => {
  db = await freshDatabase();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [teamId, 'claims']);
  await db.pool.query(
    `INSERT INTO webhooks (id, team_id, endpoint, events, secret_sealed) VALUES ($1, $2, 'http://127.0.0.1:9/hook', '{email.delivered}', 'x')`,
    [webhookId, teamId],
  );
  await db.pool.query(
    `INSERT INTO webhook_messages (id, webhook_id, team_id, event_id, event_seq, type, status, next_attempt_at, created_at)
     SELECT 'msg_' || i, $1, $2, gen_random_uuid(), i, 'email.delivered', 'pending', now() - interval '1 second', now()
     FROM generate_series(1, 10) i`,
    [webhookId, teamId],
  );
});
after(() => db.drop());

test('a claim leases its messages in order; a batch given back is due again with its attempt uncounted', async () => {
  const first = await webhookMessagesClaimDue(db.pool, webhookId, 4, 60_000);
  assert.deepEqual(
    first.map((m) => m.id),
    ['msg_1', 'msg_2', 'msg_3', 'msg_4'],
  );
  assert.ok(first.every((m) => m.attempts === 1));
  const ahead = await webhookMessagesClaimDue(db.pool, webhookId, 4, 60_000);
  assert.deepEqual(
    ahead.map((m) => m.id),
    ['msg_5', 'msg_6', 'msg_7', 'msg_8'],
    'leased messages are not claimed again',
  );
  await webhookMessagesReleaseClaim(db.pool, ahead);
  const again = await webhookMessagesClaimDue(db.pool, webhookId, 10, 60_000);
  assert.deepEqual(
    again.map((m) => m.id),
    ['msg_5', 'msg_6', 'msg_7', 'msg_8', 'msg_9', 'msg_10'],
    'the given-back batch comes first again; the first, still leased, does not',
  );
  assert.ok(
    again.every((m) => m.attempts === 1),
    'an attempt given back unsent is not counted',
  );
});

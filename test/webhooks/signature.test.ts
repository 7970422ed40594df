import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { Resend } from 'resend';
import { newSigningSecret, secretKeyBytes, signedHeaders } from '../../src/webhooks/signature.js';
import { nextAttemptDelayMs, parseRetryAfter } from '../../src/webhooks/retry.js';

const resend = new Resend('re_test');
const body = JSON.stringify({ type: 'email.sent', created_at: new Date().toISOString(), data: { email_id: 'x' } });

test('a signature made with a whsec_ secret verifies with standardwebhooks and with the resend SDK', () => {
  const secret = newSigningSecret();
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  const h = signedHeaders([secretKeyBytes(secret)], 'msg_abc', body);
  assert.equal(h['webhook-signature'], h['svix-signature']);
  assert.deepEqual(new Webhook(secret).verify(body, h), JSON.parse(body));
  const viaSdk = resend.webhooks.verify({
    payload: body,
    headers: { id: h['svix-id'], timestamp: h['svix-timestamp'], signature: h['svix-signature'] },
    webhookSecret: secret,
  });
  assert.deepEqual(viaSdk, JSON.parse(body));
});

test('during a rotation both secrets sign, as two space-separated v1 entries', () => {
  const [oldSecret, newSecret] = [newSigningSecret(), newSigningSecret()];
  const h = signedHeaders([secretKeyBytes(newSecret), secretKeyBytes(oldSecret)], 'msg_rot', body);
  assert.match(h['webhook-signature'], /^v1,\S+ v1,\S+$/);
  for (const s of [oldSecret, newSecret]) assert.ok(new Webhook(s).verify(body, h), 'each secret verifies');
  assert.throws(() => new Webhook(newSigningSecret()).verify(body, h), /No matching signature/);
});

test('follows the schedule after each failure, with jitter, and gives up when it is used up', () => {
  const schedule = [0, 5_000, 300_000];
  assert.equal(
    nextAttemptDelayMs(schedule, 1, undefined, () => 0.5),
    5_000,
  );
  assert.equal(
    nextAttemptDelayMs(schedule, 1, undefined, () => 0),
    4_500,
  );
  assert.equal(
    nextAttemptDelayMs(schedule, 1, undefined, () => 1),
    5_500,
  );
  assert.equal(
    nextAttemptDelayMs(schedule, 2, undefined, () => 0.5),
    300_000,
  );
  assert.equal(nextAttemptDelayMs(schedule, 3), null);
  assert.equal(
    nextAttemptDelayMs(schedule, 1, 60_000, () => 0.5),
    60_000,
    'Retry-After is a floor',
  );
});

test('reads Retry-After as seconds or as an HTTP date', () => {
  assert.equal(parseRetryAfter('120'), 120_000);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now), 60_000);
  assert.equal(parseRetryAfter('soon'), undefined);
  assert.equal(parseRetryAfter(undefined), undefined);
});

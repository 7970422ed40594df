// Standard Webhooks / Svix signing: `whsec_` + base64 secrets, and the `v1,<base64 HMAC-SHA256>`
// signature over `id.timestamp.body` keyed by the base64-decoded secret. Several secrets (during a
// rotation) give several space-separated entries; receivers accept any one that matches.
import { createHmac, randomBytes } from 'node:crypto';

/** 24 random bytes, as Svix issues them (`whsec_` + 32 base64 characters). */
export const newSigningSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

export const secretKeyBytes = (secret: string): Buffer =>
  Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');

export function signatureHeader(keys: Buffer[], msgId: string, timestamp: number, body: string): string {
  return keys
    .map((k) => `v1,${createHmac('sha256', k).update(`${msgId}.${timestamp}.`).update(body).digest('base64')}`)
    .join(' ');
}

/** The headers of one attempt, under both the Standard Webhooks and the Svix names. */
export function signedHeaders(keys: Buffer[], msgId: string, body: string, now = Date.now()): Record<string, string> {
  const ts = Math.floor(now / 1000);
  const sig = signatureHeader(keys, msgId, ts, body);
  return {
    'webhook-id': msgId,
    'webhook-timestamp': String(ts),
    'webhook-signature': sig,
    'svix-id': msgId,
    'svix-timestamp': String(ts),
    'svix-signature': sig,
  };
}

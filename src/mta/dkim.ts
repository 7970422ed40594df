// DKIM-signs a raw message once (all keys in one pass) with mailauth, which does RSA and Ed25519.
// Knows nothing about where keys are stored; the caller hands decrypted PEM keys in.
import { dkimSign as mailauthSign } from 'mailauth/lib/dkim/sign.js';

export interface DkimKey {
  domain: string;
  selector: string;
  privateKey: string; // PEM
  algorithm: 'rsa-sha256' | 'ed25519-sha256';
}

// mailauth reads `headerList` only as a colon-separated string (an array is silently ignored).
// List-Unsubscribe-Post is signed so that one-click unsubscribe is honoured by Gmail and Yahoo.
export const SIGNED_HEADERS = [
  'from', 'to', 'cc', 'subject', 'date', 'message-id', 'reply-to', 'mime-version', 'content-type',
  'list-unsubscribe', 'list-unsubscribe-post', 'feedback-id',
].join(':');

export class DkimSignError extends Error {}

/** Returns `raw` with one DKIM-Signature header per key prepended. Throws on an unusable key. */
export async function dkimSign(raw: Buffer, keys: DkimKey[]): Promise<Buffer> {
  if (keys.length === 0) return raw;
  const signatureData = keys.map((k) => ({
    signingDomain: k.domain,
    selector: k.selector,
    privateKey: k.privateKey,
    algorithm: k.algorithm,
    canonicalization: 'relaxed/relaxed',
  }));
  const result = await mailauthSign(raw, {
    ...signatureData[0],
    signatureData,
    headerList: SIGNED_HEADERS as unknown as string[], // typed as string[], read as a string
  });
  if (result.errors.length > 0) {
    throw new DkimSignError(`DKIM signing failed: ${result.errors.map((e) => e.message).join('; ')}`);
  }
  return Buffer.concat([Buffer.from(result.signatures, 'utf8'), raw]);
}

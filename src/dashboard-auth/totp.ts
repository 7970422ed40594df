// TOTP (RFC 6238: HMAC-SHA1 over the 30-second time step, dynamic truncation from RFC 4226),
// base32 secrets (RFC 4648) and the otpauth:// URI that authenticator apps read from a QR code.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { base32Decode as decode, base32Encode } from '../lib/base32.js';

export { base32Encode };

export const STEP_SECONDS = 30;

/** A TOTP secret as people type it (any case, spaces, dashes, padding); throws on other characters. */
export function base32Decode(s: string): Buffer {
  const b = decode(s.toUpperCase().replace(/[\s=-]/g, ''));
  if (!b) throw new Error('invalid base32');
  return b;
}

export const newTotpSecret = (): string => base32Encode(randomBytes(20));

/** The HOTP value for a counter (RFC 4226 section 5.3). */
export function hotp(
  key: Buffer,
  counter: number,
  digits = 6,
  algorithm: 'sha1' | 'sha256' | 'sha512' = 'sha1',
): string {
  const msg = Buffer.alloc(8);
  msg.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac(algorithm, key).update(msg).digest();
  const offset = mac[mac.length - 1] & 0xf;
  const bin = ((mac[offset] & 0x7f) << 24) | (mac[offset + 1] << 16) | (mac[offset + 2] << 8) | mac[offset + 3];
  return String(bin % 10 ** digits).padStart(digits, '0');
}

export const timeStep = (unixMs: number): number => Math.floor(unixMs / 1000 / STEP_SECONDS);

export function totp(secretB32: string, unixMs = Date.now(), digits = 6): string {
  return hotp(base32Decode(secretB32), timeStep(unixMs), digits);
}

/** The matching time step within ±`window` steps of now, or null (constant-time per candidate). */
export function verifyTotp(secretB32: string, code: string, unixMs = Date.now(), window = 1): number | null {
  const c = code.replace(/\s/g, '');
  if (!/^\d{6}$/.test(c)) return null;
  const key = base32Decode(secretB32);
  const now = timeStep(unixMs);
  let found: number | null = null;
  for (let step = now - window; step <= now + window; step++) {
    if (timingSafeEqual(Buffer.from(hotp(key, step)), Buffer.from(c)) && found === null) found = step;
  }
  return found;
}

export function otpauthUri(secretB32: string, account: string, issuer = 'Mailroom'): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const q = new URLSearchParams({
    secret: secretB32,
    issuer,
    algorithm: 'SHA1',
    digits: '6',
    period: String(STEP_SECONDS),
  });
  return `otpauth://totp/${label}?${q}`;
}

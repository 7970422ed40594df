// Login throttling, shared by every api process through the database: 5 failures per account and
// client address, or 50 per address, within 15 minutes lock that key for 15 minutes. Second-factor
// codes count per user (5 wrong codes lock the user's MFA step for 15 minutes). Every attempt is
// counted before the slow check (scrypt, TOTP) in one statement, so 100 concurrent guesses get
// 5 checks, not 100; a good attempt gives its count back.
import { AppError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { throttleClear, throttleRelease, throttleReserve } from '../store/sessions.js';

const WINDOW_S = 15 * 60;
const LOCK_S = 15 * 60;
export const PER_ACCOUNT_AND_IP = 5;
const PER_IP = 50;

type Keys = { key: string; max: number }[];

export class LoginThrottle {
  constructor(private readonly db: Queryable) {}

  passwordKeys(email: string, ip: string): Keys {
    return [{ key: `acct-ip:${email.toLowerCase()}|${ip}`, max: PER_ACCOUNT_AND_IP }, { key: `ip:${ip}`, max: PER_IP }];
  }

  mfaKeys(userId: string): Keys {
    return [{ key: `mfa:${userId}`, max: PER_ACCOUNT_AND_IP }];
  }

  /** Counts an attempt; throws 429 when a key is past its limit (the attempt must not be checked). */
  async begin(keys: Keys): Promise<void> {
    const s = await throttleReserve(this.db, keys, WINDOW_S, LOCK_S);
    if (s > 0) throw new AppError('rate_limit_exceeded', `Too many failed attempts. Try again in ${Math.ceil(s / 60)} minute${s > 60 ? 's' : ''}.`);
  }

  /** A success clears the per-account counters (not the per-address one). */
  async succeed(keys: Keys): Promise<void> {
    for (const k of keys) await (k.key.startsWith('ip:') ? throttleRelease(this.db, k.key) : throttleClear(this.db, k.key));
  }
}

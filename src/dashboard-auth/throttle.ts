// Login throttling, shared by every api process through the database: 5 failures per account and
// client address, or 50 per address, within 15 minutes lock that key for 15 minutes. Second-factor
// codes count per user (5 wrong codes lock the user's MFA step for 15 minutes).
import { AppError } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { throttleClear, throttleFail, throttleLockedFor } from '../store/sessions.js';

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

  /** Throws 429 when any key is locked. */
  async check(keys: Keys): Promise<void> {
    for (const k of keys) {
      const s = await throttleLockedFor(this.db, k.key);
      if (s > 0) throw new AppError('rate_limit_exceeded', `Too many failed attempts. Try again in ${Math.ceil(s / 60)} minute${s > 60 ? 's' : ''}.`);
    }
  }

  async fail(keys: Keys): Promise<void> {
    await throttleFail(this.db, keys, WINDOW_S, LOCK_S);
  }

  /** A success clears the per-account counters (not the per-address one). */
  async succeed(keys: Keys): Promise<void> {
    for (const k of keys) if (!k.key.startsWith('ip:')) await throttleClear(this.db, k.key);
  }
}

// Sign-in throttling, shared by every api process through the database. Password attempts count
// on three keys: the account and client address (5 in 15 minutes lock the pair for 15 minutes),
// the client address (50 for any accounts), and the account from every address (10 lock it for
// 5 minutes: an attacker spraying a victim from many addresses). Second-factor codes count per
// user (5). Each attempt is counted before the slow check (scrypt, TOTP), in one transaction
// that holds the keys' rows, so 100 concurrent guesses get 5 checks, not 100. An attempt refused
// by a lock counts on no key, so a flood neither stretches a lock nor fills another key; a good
// attempt gives back its own count and no more (earlier failures stay counted).
import { AppError } from '../errors.js';
import { withTx, type Pool } from '../store/db.js';
import { throttleCount, throttleLockKeys, throttleRelease } from '../store/sessions.js';

const WINDOW_S = 15 * 60;
const LOCK_S = 15 * 60;
export const PER_ACCOUNT_AND_IP = 5;
const PER_IP = 50;
/** Across all addresses: a few times what one address may try, with a lock short enough that an owner without MFA waits minutes. */
export const PER_ACCOUNT = 10;
export const ACCOUNT_LOCK_S = 5 * 60;

/** A counter; `bypassable`: a lock on it does not refuse the attempt (the caller decides after the check). */
export interface ThrottleKey {
  key: string;
  max: number;
  windowS?: number;
  lockS?: number;
  bypassable?: boolean;
}
type Keys = ThrottleKey[];

/** An attempt let through: the keys it was counted on, and how long a bypassed lock has left (0 = none). */
export interface Attempt {
  counted: Keys;
  bypassedWait: number;
}

const refusal = (s: number) =>
  new AppError(
    'rate_limit_exceeded',
    `Too many failed attempts. Try again in ${Math.ceil(s / 60)} minute${s > 60 ? 's' : ''}.`,
  );

export class LoginThrottle {
  constructor(private readonly pool: Pool) {}

  /**
   * A per-account lock holds for everyone unless the account has a second factor: then a right
   * password still goes on to the second factor (itself throttled per user), so a spray from many
   * addresses cannot lock the owner out, and a guessed password alone opens nothing.
   */
  passwordKeys(email: string, ip: string, hasSecondFactor = false): Keys {
    const e = email.toLowerCase();
    return [
      { key: `acct:${e}`, max: PER_ACCOUNT, lockS: ACCOUNT_LOCK_S, bypassable: hasSecondFactor },
      { key: `acct-ip:${e}|${ip}`, max: PER_ACCOUNT_AND_IP },
      { key: `ip:${ip}`, max: PER_IP },
    ];
  }

  mfaKeys(userId: string): Keys {
    return [{ key: `mfa:${userId}`, max: PER_ACCOUNT_AND_IP }];
  }

  /** Counts an attempt on its open keys; throws 429, counting nothing, when a key that is not bypassable is locked. */
  async begin(keys: Keys): Promise<Attempt> {
    return withTx(this.pool, async (tx) => {
      const wait = await throttleLockKeys(
        tx,
        keys.map((k) => k.key),
      );
      const locked = keys.filter((k) => (wait.get(k.key) ?? 0) > 0);
      const refusing = locked.filter((k) => !k.bypassable);
      if (refusing.length) throw refusal(Math.max(...refusing.map((k) => wait.get(k.key)!)));
      const counted = keys.filter((k) => !locked.includes(k));
      await throttleCount(
        tx,
        counted.map((k) => ({ key: k.key, max: k.max, windowS: k.windowS ?? WINDOW_S, lockS: k.lockS ?? LOCK_S })),
      );
      return { counted, bypassedWait: Math.max(0, ...locked.map((k) => wait.get(k.key)!)) };
    });
  }

  /** A failed attempt that went through a bypassable lock is refused as the lock would have refused it. */
  failed(attempt: Attempt): void {
    if (attempt.bypassedWait > 0) throw refusal(attempt.bypassedWait);
  }

  /** A good attempt gives back its own count on the keys it was counted on (earlier failures stay). */
  async succeed(keys: Keys): Promise<void> {
    await throttleRelease(this.pool, keys);
  }
}

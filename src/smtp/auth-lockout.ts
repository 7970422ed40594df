// Failed SMTP AUTH attempts per client address: after MAX_FAILURES within WINDOW_S the address
// is locked out (temporary 4xx) for LOCK_S, so a password guesser gets a handful of tries an hour.
// Shared by every submission process: the counts are rows of the login_throttle table that the
// dashboard's sign-in uses (key `smtp:<ip>`), so a guesser spreading attempts over N processes
// behind a load balancer gets MAX_FAILURES, not N x MAX_FAILURES (it did while each process
// counted in memory). PostgreSQL rather than Redis: the Redis limiter (ratelimit/) is optional
// (without MAILROOM_REDIS_URL each process would count alone again: the defect this fixes) and
// is a fixed-window counter with no lock-out or give-back; login_throttle is always there and
// already counts before the check and gives back a success's own count, in one transaction per
// AUTH (one AUTH per session, next to the key check's own query).
// An attempt is counted when it starts (`begin`), before the slow key check, so concurrent
// guesses cannot all slip past the limit (the row is locked while counting); a success gives
// back only its own count, never earlier failures (else one valid key between guesses would
// reset the count: 8 wrong + 1 right, repeated, made 48 guesses of 10). A refused attempt is not
// counted, so a flood cannot stretch a lock-out; while locked out the address is refused even
// with a right key (the lock-out is the address's, as in Postfix). Stale rows are deleted by
// the sessions.expiry recurring job, as the dashboard's are.
import { withTx, type Pool } from '../store/db.js';
import { throttleCount, throttleLockKeys, throttleRelease } from '../store/sessions.js';

export const MAX_FAILURES = 10;
export const WINDOW_S = 10 * 60;
export const LOCK_S = 15 * 60;

export const lockoutKey = (ip: string) => `smtp:${ip}`;

export class AuthLockout {
  constructor(private readonly pool: Pool) {}

  /** Counts an attempt before it is checked: 0, or (nothing counted) the seconds the address stays locked out. */
  begin(ip: string): Promise<number> {
    const key = lockoutKey(ip);
    return withTx(this.pool, async (tx) => {
      const wait = (await throttleLockKeys(tx, [key])).get(key) ?? 0;
      if (wait > 0) return wait;
      await throttleCount(tx, [{ key, max: MAX_FAILURES, windowS: WINDOW_S, lockS: LOCK_S }]);
      return 0;
    });
  }

  /** The attempt begun was good: it gives back its own count; a lock-out that only it completed is lifted. */
  async succeed(ip: string): Promise<void> {
    await throttleRelease(this.pool, [{ key: lockoutKey(ip), max: MAX_FAILURES }]);
  }
}

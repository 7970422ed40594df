// Failed SMTP AUTH attempts per client address: after MAX_FAILURES within WINDOW_MS the address
// is locked out (temporary 4xx) for LOCK_MS, so a password guesser gets a handful of tries an hour.
// In memory, per process: each submission process counts its own clients. An attempt is counted
// when it starts (`begin`), before the slow key check, so concurrent guesses cannot all slip past
// the limit; a success gives back only its own count, never earlier failures (else one valid key
// between guesses would reset the count: 8 wrong + 1 right, repeated, made 48 guesses of 10).
// A refused attempt is not counted, so a flood cannot stretch a lock-out; while locked out the
// address is refused even with a right key (the lock-out is the address's, as in Postfix).
export const MAX_FAILURES = 10;
const WINDOW_MS = 10 * 60_000;
const LOCK_MS = 15 * 60_000;
const MAX_TRACKED = 100_000;

export class AuthLockout {
  private readonly byIp = new Map<string, { failures: number; since: number; lockedUntil: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Milliseconds the address stays locked out, or 0. */
  lockedFor(ip: string): number {
    const e = this.byIp.get(ip);
    return e ? Math.max(0, e.lockedUntil - this.now()) : 0;
  }

  /** Counts an attempt before it is checked: false (and nothing counted) when the address is locked out. */
  begin(ip: string): boolean {
    const now = this.now();
    let e = this.byIp.get(ip);
    if (e && e.lockedUntil > now) return false;
    if (!e || now - e.since > WINDOW_MS) {
      if (!e && this.byIp.size >= MAX_TRACKED) this.prune(now);
      e = { failures: 0, since: now, lockedUntil: 0 };
      this.byIp.set(ip, e);
    }
    e.failures++;
    if (e.failures >= MAX_FAILURES) e.lockedUntil = now + LOCK_MS;
    return true;
  }

  /** The attempt begun was good: it gives back its own count; a lock-out that only it completed is lifted. */
  succeed(ip: string): void {
    const e = this.byIp.get(ip);
    if (!e || e.failures === 0) return;
    e.failures--;
    if (e.failures < MAX_FAILURES) e.lockedUntil = 0;
  }

  private prune(now: number): void {
    for (const [ip, e] of this.byIp) if (e.lockedUntil < now && now - e.since > WINDOW_MS) this.byIp.delete(ip);
    if (this.byIp.size >= MAX_TRACKED) this.byIp.clear(); // under a flood from many addresses: forget rather than grow
  }
}

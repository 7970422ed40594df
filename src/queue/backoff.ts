// Retry delays for failed jobs: the one place they are computed (the worker calls it).
export interface BackoffOptions {
  baseMs?: number; // the delay after the first failure, before jitter (default 1 s)
  maxMs?: number; // the cap (default 1 h)
}

/**
 * Delay before the retry that follows failed attempt number `attempt` (1-based): baseMs·2^(attempt-1)
 * capped at maxMs, with "equal jitter" (half fixed, half random) so jobs that failed from one cause
 * (a remote server down) do not come back in lockstep. With the defaults and 25 attempts a job is
 * retried for about 10 hours: 12 doublings to ~34 min, then hourly.
 */
export function backoffMs(attempt: number, opts: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = opts.baseMs ?? 1000;
  const max = opts.maxMs ?? 3_600_000;
  const full = Math.min(max, base * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.round(full / 2 + (random() * full) / 2);
}

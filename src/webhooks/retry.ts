// When a failed webhook message is tried again: the configured schedule (Svix's by default:
// first attempt at once, then 5 s, 5 m, 30 m, 2 h, 5 h, 10 h, 10 h after each failure), with
// ±10% jitter so one endpoint's messages do not come back in lockstep, never before a
// Retry-After the endpoint sent with a 429 or 503.
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * Delay before the next attempt after `attemptsMade` attempts failed, or null when the schedule
 * is used up (the message has failed).
 */
export function nextAttemptDelayMs(
  schedule: readonly number[],
  attemptsMade: number,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number | null {
  if (attemptsMade >= schedule.length) return null;
  const base = schedule[attemptsMade];
  const jittered = Math.round(base * (0.9 + 0.2 * random()));
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  const ms = /^\d+$/.test(v) ? Number(v) * 1000 : Date.parse(v) - now;
  if (!Number.isFinite(ms)) return undefined;
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

// When a deferred delivery is tried again (DESIGN.md section 3): 1 m, 5 m, 15 m, 30 m, 1 h, 2 h,
// 4 h, 8 h, then every 8 h, jittered ±15%; a wait named by the remote server is honoured; after
// 72 h the message bounces as Transient. Derived from the time since the first attempt, so it
// needs no attempt counter and survives restarts.
const LADDER_MS = [1, 5, 15, 30, 60, 120, 240, 480].map((m) => m * 60_000);
const EVERY_MS = 480 * 60_000;
export const GIVE_UP_AFTER_MS = 72 * 3600_000;

/** The pause before the next attempt, given how long this email has been trying. */
export function nextRetryDelayMs(
  elapsedMs: number,
  serverWaitSeconds?: number,
  random: () => number = Math.random,
): number {
  let base = EVERY_MS;
  let cumulative = 0;
  for (const step of LADDER_MS) {
    if (elapsedMs < cumulative + step) {
      base = step;
      break;
    }
    cumulative += step;
  }
  const jittered = base * (0.85 + 0.3 * random());
  if (serverWaitSeconds !== undefined && serverWaitSeconds > 0)
    return Math.min(Math.max(serverWaitSeconds * 1000, 30_000), EVERY_MS);
  return Math.round(jittered);
}

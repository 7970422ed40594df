// Per-team request rate limit, a fixed window of one second aligned to the clock (so several
// processes sharing Redis count the same window). Shared by the API and SMTP submission.
// In memory per process by default; in Redis (INCR + PEXPIRE in one round trip) when
// MAILROOM_REDIS_URL is set. If Redis is unreachable the request is allowed (fail open) and
// a warning is logged: a broken counter store must not take sending down with it.
import type { Logger } from '../lib/log.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** seconds until the window resets (at least 1) */
  reset: number;
}

export interface RateLimiter {
  /** Counts `cost` units (1 request, or n recipients) against the key's window. */
  consume(key: string, cost?: number): Promise<RateDecision>;
  close(): Promise<void>;
}

const WINDOW_MS = 1000;

function decide(limit: number, count: number, windowEnd: number, now: number): RateDecision {
  return {
    allowed: count <= limit,
    limit,
    remaining: Math.max(0, limit - count),
    reset: Math.max(1, Math.ceil((windowEnd - now) / 1000)),
  };
}

export function memoryLimiter(limit: number): RateLimiter {
  const counts = new Map<string, { window: number; count: number }>();
  return {
    async consume(key, cost = 1) {
      const now = Date.now();
      const window = Math.floor(now / WINDOW_MS);
      let c = counts.get(key);
      if (!c || c.window !== window) {
        if (counts.size > 100_000) counts.clear();
        c = { window, count: 0 };
        counts.set(key, c);
      }
      c.count += cost;
      return decide(limit, c.count, (window + 1) * WINDOW_MS, now);
    },
    async close() {},
  };
}

export async function redisLimiter(limit: number, url: string, log: Logger): Promise<RateLimiter> {
  const { Redis } = await import('ioredis');
  const redis = new Redis(url, {
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    lazyConnect: true,
    connectTimeout: 2000,
  });
  redis.on('error', () => undefined); // reported per request below
  await redis.connect();
  let warned = 0;
  return {
    async consume(key, cost = 1) {
      const now = Date.now();
      const window = Math.floor(now / WINDOW_MS);
      try {
        const res = await redis
          .multi()
          .incrby(`mailroom:rl:${key}:${window}`, cost)
          .pexpire(`mailroom:rl:${key}:${window}`, WINDOW_MS * 2)
          .exec();
        const count = Number(res?.[0]?.[1] ?? 0);
        return decide(limit, count, (window + 1) * WINDOW_MS, now);
      } catch (err) {
        if (now - warned > 10_000) {
          warned = now;
          log.warn('rate limit store unavailable; allowing request', { err });
        }
        return decide(limit, 0, (window + 1) * WINDOW_MS, now);
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}

export async function createLimiter(opts: { limit: number; redisUrl?: string; log: Logger }): Promise<RateLimiter> {
  return opts.redisUrl ? redisLimiter(opts.limit, opts.redisUrl, opts.log) : memoryLimiter(opts.limit);
}

/** Response headers for a decision: Resend's draft-06 trio + policy, and the draft-11 RateLimit. */
export function rateLimitHeaders(d: RateDecision): Record<string, string> {
  const h: Record<string, string> = {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.reset),
    'ratelimit-policy': `${d.limit};w=1`,
    ratelimit: `"default";r=${d.remaining};t=${d.reset}`,
  };
  if (!d.allowed) h['retry-after'] = String(d.reset);
  return h;
}

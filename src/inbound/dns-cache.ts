// A short-lived cache of DNS answers (and of "no such name") for inbound authentication: SPF,
// DKIM key and DMARC lookups repeat for every message from the same sender, and a busy MX would
// otherwise ask the resolver three or more times per message. Answers live CACHE_MS (a floor far
// below usual TTLs: MAILROOM_MX_DNS_CACHE_SECONDS, 60 by default, so a changed record is seen
// within a minute); failures other than "no data" (timeouts, SERVFAIL) are not cached.
import type { Resolver } from 'node:dns/promises';

const MAX_ENTRIES = 20_000;
const NEGATIVE = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);

export type ResolveFn = (name: string, type: string) => Promise<unknown>;

export function cachedResolve(
  resolver: Pick<Resolver, 'resolve'>,
  cacheMs: number,
  now: () => number = Date.now,
): ResolveFn {
  if (cacheMs <= 0) return (name, type) => resolver.resolve(name, type as never) as Promise<unknown>;
  const cache = new Map<string, { until: number; value?: unknown; error?: unknown }>();
  const inflight = new Map<string, Promise<unknown>>();
  return async (name, type) => {
    const key = `${type} ${name.toLowerCase()}`;
    const hit = cache.get(key);
    if (hit && hit.until > now()) {
      if (hit.error) throw hit.error;
      return hit.value;
    }
    const pending = inflight.get(key);
    if (pending) return pending;
    const p = (resolver.resolve(name, type as never) as Promise<unknown>)
      .then(
        (value) => {
          remember(key, { until: now() + cacheMs, value });
          return value;
        },
        (error: { code?: string }) => {
          if (NEGATIVE.has(error?.code ?? '')) remember(key, { until: now() + cacheMs, error });
          throw error;
        },
      )
      .finally(() => inflight.delete(key));
    inflight.set(key, p);
    return p;
  };
  function remember(key: string, entry: { until: number; value?: unknown; error?: unknown }) {
    if (cache.size >= MAX_ENTRIES) cache.clear();
    cache.set(key, entry);
  }
}

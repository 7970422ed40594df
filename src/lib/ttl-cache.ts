// A small in-process cache: entries live `ttlMs`, and past `maxEntries` the whole cache is
// dropped (cheaper than tracking use; the callers keep few, hot keys). `load` keeps a promise,
// forgotten if it rejects, so concurrent callers share one load.

export class TtlCache<V> {
  private readonly entries = new Map<string, { until: number; value: V }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
  ) {}

  get(key: string): V | undefined {
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (hit.until > Date.now()) return hit.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): V {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { until: Date.now() + this.ttlMs, value });
    return value;
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** The value for `key`, loaded once per ttl (a failed load is not kept). */
export function cachedLoad<T>(cache: TtlCache<Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
  const hit = cache.get(key);
  if (hit) return hit;
  const value = cache.set(key, load());
  value.catch(() => cache.delete(key));
  return value;
}

// Time helpers. API resources carry Postgres text timestamps ("2023-04-03 22:13:42.674981+00"),
// produced by SQL (`created_at::text` with the session TimeZone set to UTC in store/db.ts).
/** A Postgres text timestamp (or a Date) as ISO 8601 in UTC, for webhook payloads. */
export const isoOf = (d: Date | string): string =>
  (typeof d === 'string'
    ? new Date(d.includes('T') ? d : d.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'))
    : d
  ).toISOString();
/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((r) => {
    if (signal?.aborted) return r();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      r();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

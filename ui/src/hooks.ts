// Loading data for a page: value, error, loading flag and a reload function; actions with busy
// and error state; cursor-paged lists.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, get, type List } from './api';

/** The HTTP status of a failed request (undefined: no answer, or not an API error). */
const statusOf = (e: unknown) => (e instanceof ApiError ? e.status : undefined);

export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): {
  data: T | undefined;
  error: string | undefined;
  errorStatus: number | undefined;
  loading: boolean;
  reload: () => void;
} {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [errorStatus, setErrorStatus] = useState<number>();
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    load()
      .then(
        (d) => {
          if (live) {
            setData(d);
            setError(undefined);
          }
        },
        (e: Error) => {
          if (live) {
            setError(e.message);
            setErrorStatus(statusOf(e));
          }
        },
      )
      .finally(() => {
        if (live) setLoading(false);
      });
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data, error, errorStatus, loading, reload };
}

/** Runs an action, exposing busy and error state for the form that triggers it. */
export function useAction<A extends unknown[], R>(fn: (...args: A) => Promise<R>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const run = async (...args: A): Promise<R | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await fn(...args);
    } catch (e) {
      setError((e as Error).message);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, setError };
}

/**
 * A cursor-paged list (`after`, `has_more`): the first page whenever `key` changes (or on
 * reload), the next ones from `more()`, or on scroll once `sentinel` (a div below the table)
 * comes into view. `setRows` lets a page change a row in place without losing the pages loaded.
 */
export function usePaged<T extends { id: string }>(path: (after?: string) => string, key: string) {
  const [rows, setRows] = useState<T[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [errorStatus, setErrorStatus] = useState<number>();
  const [loaded, setLoaded] = useState(false);
  const [tick, setTick] = useState(0);
  const inflight = useRef<string | null>(null); // the cursor being fetched: a click and the scroll observer must not both load it
  // Each first-page load starts a generation; an answer from an older one (a filter changed, or a
  // refresh, while it was on its way) is dropped, or it could land after the newer list and replace it.
  const generation = useRef(0);
  const load = async (after?: string) => {
    if (after && inflight.current === after) return;
    const gen = after ? generation.current : ++generation.current;
    inflight.current = after ?? null;
    setBusy(true);
    try {
      const r = await get<List<T>>(path(after));
      if (gen !== generation.current) return;
      setRows((prev) => (after ? [...prev, ...r.data] : r.data));
      setHasMore(r.has_more);
      setError(undefined);
    } catch (e) {
      if (gen !== generation.current) return;
      setError((e as Error).message);
      setErrorStatus(statusOf(e));
    } finally {
      if (gen === generation.current) {
        inflight.current = null;
        setBusy(false);
        setLoaded(true);
      }
    }
  };
  useEffect(() => {
    setLoaded(false);
    load();
  }, [key, tick]);
  const more = () => {
    if (!busy && rows.length) load(rows[rows.length - 1].id);
  };

  // A callback ref kept in state: the sentinel may mount after the rows arrived (the page around
  // the list can still be loading), and the observer must start when it does.
  const [sentinelEl, sentinel] = useState<HTMLDivElement | null>(null);
  useEffect(() => {
    if (!sentinelEl || !hasMore) return;
    const io = new IntersectionObserver(
      (es) => {
        if (es[0].isIntersecting) more();
      },
      { rootMargin: '200px' },
    );
    io.observe(sentinelEl);
    return () => io.disconnect();
  }, [sentinelEl, hasMore, busy, rows]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { rows, setRows, hasMore, busy, error, errorStatus, loaded, more, reload, sentinel };
}

/**
 * Calls `tick` every `ms` while the page is visible, and once on coming back to it; nothing while
 * the tab is hidden (a live page polls only while someone can see it). `tick` must be stable.
 */
export function useVisibleInterval(tick: () => void, ms: number, on = true) {
  useEffect(() => {
    if (!on) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    const start = () => {
      if (!timer) timer = setInterval(tick, ms);
    };
    const stop = () => {
      if (timer) clearInterval(timer);
      timer = undefined;
    };
    const change = () => {
      if (document.visibilityState === 'visible') {
        tick();
        start();
      } else stop();
    };
    if (document.visibilityState === 'visible') start();
    document.addEventListener('visibilitychange', change);
    return () => {
      stop();
      document.removeEventListener('visibilitychange', change);
    };
  }, [on, ms, tick]);
}

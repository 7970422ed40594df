// A page loaded on its first visit (a separate chunk, not in the main bundle): "Loading…" until
// its module arrives, a retry if it could not be fetched.
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ErrorRetry, Loading } from './ui';

export function lazyPage<P extends object>(load: () => Promise<FunctionComponent<P>>): FunctionComponent<P> {
  let loaded: FunctionComponent<P> | undefined;
  return function LazyPage(props: P) {
    const [C, setC] = useState<FunctionComponent<P> | undefined>(() => loaded);
    const [error, setError] = useState<string>();
    const [tick, setTick] = useState(0);
    useEffect(() => {
      if (C) return;
      let live = true;
      load().then(
        (c) => {
          loaded = c;
          if (live) setC(() => c);
        },
        (e: Error) => live && setError(`The page could not be loaded (${e.message}).`),
      );
      return () => {
        live = false;
      };
    }, [tick]);
    if (C) return <C {...props} />;
    if (error)
      return (
        <ErrorRetry
          error={error}
          retry={() => {
            setError(undefined);
            setTick((n) => n + 1);
          }}
        />
      );
    return <Loading />;
  };
}

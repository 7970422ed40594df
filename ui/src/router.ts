// A small history router for the client routes under /dashboard/ (the server falls back to the
// SPA only there, so API paths keep their JSON 404s).
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';
const CHANGE = 'mailroom:navigate';

export interface Route {
  path: string;
  query: URLSearchParams;
}

export function current(): Route {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path: p.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search) };
}

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = to.startsWith('/') ? BASE + to : to;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  window.dispatchEvent(new Event(CHANGE));
  window.scrollTo(0, 0);
}

export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const on = () => setRoute(current());
    window.addEventListener('popstate', on);
    window.addEventListener(CHANGE, on);
    return () => {
      window.removeEventListener('popstate', on);
      window.removeEventListener(CHANGE, on);
    };
  }, []);
  return route;
}

/** `/emails/:id` against `/emails/42` → { id: '42' }, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/');
  const b = path.split('/');
  if (a.length !== b.length) return null;
  const out: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i].startsWith(':')) out[a[i].slice(1)] = decodeURIComponent(b[i]);
    else if (a[i] !== b[i]) return null;
  }
  return out;
}

/** Updates query parameters of the current route without a new history entry. */
export function setQuery(params: Record<string, string | undefined>): void {
  const q = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(params))
    if (v) q.set(k, v);
    else q.delete(k);
  const s = q.toString();
  history.replaceState(null, '', location.pathname + (s ? `?${s}` : ''));
  window.dispatchEvent(new Event(CHANGE));
}

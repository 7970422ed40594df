// Display helpers: dates as the server sends them ("2026-01-02 10:11:12.123+00"), relative times,
// numbers, and status colours.

export function parseDate(s: string | null | undefined): Date | null {
  if (!s) return null;
  const iso = s.includes('T') ? s : s.replace(' ', 'T').replace(/\+00$/, 'Z');
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function fmtDate(s: string | null | undefined): string {
  const d = parseDate(s);
  return d
    ? d.toLocaleString(undefined, {
        year: 'numeric',
        month: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
    : '—';
}

export function ago(s: string | null | undefined): string {
  const d = parseDate(s);
  if (!d) return '—';
  const sec = Math.round((Date.now() - d.getTime()) / 1000);
  if (sec < 45) return 'just now';
  const units: [number, string][] = [
    [60, 'minute'],
    [3600, 'hour'],
    [86400, 'day'],
    [2592000, 'month'],
    [31536000, 'year'],
  ];
  let best: [number, string] = units[0];
  for (const u of units) if (sec >= u[0]) best = u;
  const n = Math.round(sec / best[0]);
  return `${n} ${best[1]}${n === 1 ? '' : 's'} ago`;
}

export const num = (n: number | undefined) => (n ?? 0).toLocaleString();
export const pct = (n: number | undefined) => `${((n ?? 0) * 100).toFixed(1)}%`;

/** A byte count for people: 512 B, 12.3 KB, 4.5 MB (powers of 1024). */
export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const [v, u] = n < 1024 ** 2 ? [n / 1024, 'KB'] : n < 1024 ** 3 ? [n / 1024 ** 2, 'MB'] : [n / 1024 ** 3, 'GB'];
  return `${v < 10 ? v.toFixed(1) : Math.round(v)} ${u}`;
}

export type Tone = 'ok' | 'warn' | 'bad' | 'info' | 'muted';

export function tone(status: string): Tone {
  if (
    [
      'delivered',
      'verified',
      'enabled',
      'success',
      'opened',
      'clicked',
      'owner',
      'pass',
      'subscribed',
      'completed',
    ].includes(status)
  )
    return 'ok';
  if (
    [
      'bounced',
      'failed',
      'complained',
      'suppressed',
      'disabled',
      'temporary_failure',
      'canceled',
      'fail',
      'permerror',
    ].includes(status)
  )
    return 'bad';
  if (
    [
      'delivery_delayed',
      'pending',
      'attempting',
      'not_started',
      'scheduled',
      'queued',
      'unsubscribed',
      'softfail',
      'temperror',
      'neutral',
      'policy',
    ].includes(status)
  )
    return 'warn';
  if (['sent', 'admin', 'in_progress'].includes(status)) return 'info';
  return 'muted';
}

export const label = (s: string) => s.replace(/^email\./, '').replace(/_/g, ' ');

/** "delivery_delayed" → "Delivery delayed": how badges read (their CSS capitalises), for option lists. */
export const titleLabel = (s: string) => label(s).replace(/\b\w/g, (c) => c.toUpperCase());

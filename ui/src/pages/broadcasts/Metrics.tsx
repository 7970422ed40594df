// The per-broadcast metrics tiles, with live progress while it sends.
import { num } from '../../format';

export interface Stats {
  recipients: number;
  queued: number;
  sent: number;
  delivered: number;
  bounced: number;
  complained: number;
  opened: number;
  clicked: number;
  unsubscribed: number;
  suppressed: number;
  failed: number;
  canceled: number;
  skipped: { unsubscribed: number; topic: number; suppressed: number };
}

const pct = (n: number, of: number) => (of > 0 ? `${((n / of) * 100).toFixed(1)}%` : '—');

/** The per-broadcast numbers, with the share of emails handed over while it sends. */
export function Metrics({ s, live }: { s: Stats; live: boolean }) {
  const done = s.sent - s.queued;
  const tiles: [string, string, string?][] = [
    [
      'Recipients',
      num(s.recipients),
      `${num(s.skipped.unsubscribed + s.skipped.topic + s.skipped.suppressed)} skipped`,
    ],
    ['Delivered', num(s.delivered), pct(s.delivered, s.sent)],
    ['Opened', num(s.opened), pct(s.opened, s.delivered)],
    ['Clicked', num(s.clicked), pct(s.clicked, s.delivered)],
    ['Bounced', num(s.bounced), pct(s.bounced, s.sent)],
    ['Complained', num(s.complained), pct(s.complained, s.delivered)],
    ['Unsubscribed', num(s.unsubscribed), pct(s.unsubscribed, s.delivered)],
    ['Waiting for delivery', num(s.queued)],
  ];
  return (
    <>
      <div class="progress-line">
        <progress max={Math.max(s.recipients, s.sent, 1)} value={Math.max(done, 0)} aria-label="Emails handed over" />
        <span class="muted">
          {num(Math.max(done, 0))} of {num(Math.max(s.recipients, s.sent))} handed over{live ? ' · updating live' : ''}
        </span>
      </div>
      <div class="stats compact" data-testid="metrics">
        {tiles.map(([label, value, sub]) => (
          <div class="stat" key={label}>
            <div class="stat-label">{label}</div>
            <div class="stat-value">{value}</div>
            {sub && <div class="stat-sub">{sub}</div>}
          </div>
        ))}
      </div>
    </>
  );
}

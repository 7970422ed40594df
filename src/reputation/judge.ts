// The reputation guard's verdict from a domain's counts: pure, no I/O. Two windows (the last hour
// and the last 7 days); each is judged only once it holds MAILROOM_REPUTATION_MIN_SAMPLE delivered +
// bounced recipients, so 1 bounce out of 3 trips nothing. Acting beats warning; complaints are
// named before bounces. Rates are of delivered + bounced recipients, as the broadcast pause's are.
import type { Config } from '../config/schema.js';
import type { Counts, GuardState } from '../store/reputation.js';

export type Thresholds = Pick<
  Config,
  | 'reputationComplaintWarn'
  | 'reputationComplaintAct'
  | 'reputationBounceWarn'
  | 'reputationBounceAct'
  | 'reputationMinSample'
>;
export interface Window {
  label: string;
  counts: Counts;
}
export interface Verdict {
  state: Exclude<GuardState, 'paused'> | 'paused';
  reason: string | null;
}

export const sampleOf = (c: Counts) => c.delivered + c.bounced;
export const pct = (x: number) => `${(x * 100).toFixed(2)}%`;

/** The rates of a window, null when it has no mail. */
export function ratesOf(c: Counts): { sample: number; bounce_rate: number | null; complaint_rate: number | null } {
  const sample = sampleOf(c);
  return {
    sample,
    bounce_rate: sample ? c.hard_bounced / sample : null,
    complaint_rate: sample ? c.complained / sample : null,
  };
}

export function judge(t: Thresholds, windows: Window[]): Verdict {
  const checks = [
    {
      level: 'paused' as const,
      what: 'complaint',
      n: (c: Counts) => c.complained,
      limit: t.reputationComplaintAct,
      env: 'MAILROOM_REPUTATION_COMPLAINT_ACT',
    },
    {
      level: 'paused' as const,
      what: 'hard-bounce',
      n: (c: Counts) => c.hard_bounced,
      limit: t.reputationBounceAct,
      env: 'MAILROOM_REPUTATION_BOUNCE_ACT',
    },
    {
      level: 'warning' as const,
      what: 'complaint',
      n: (c: Counts) => c.complained,
      limit: t.reputationComplaintWarn,
      env: 'MAILROOM_REPUTATION_COMPLAINT_WARN',
    },
    {
      level: 'warning' as const,
      what: 'hard-bounce',
      n: (c: Counts) => c.hard_bounced,
      limit: t.reputationBounceWarn,
      env: 'MAILROOM_REPUTATION_BOUNCE_WARN',
    },
  ];
  for (const check of checks) {
    for (const w of windows) {
      const sample = sampleOf(w.counts);
      if (sample < t.reputationMinSample || sample === 0) continue;
      const n = check.n(w.counts);
      if (n > 0 && n / sample >= check.limit) {
        return {
          state: check.level,
          reason: `${check.what} rate ${pct(n / sample)} over ${w.label} (${n} of ${sample}) reached ${pct(check.limit)} (${check.env})`,
        };
      }
    }
  }
  return { state: 'ok', reason: null };
}

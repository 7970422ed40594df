// GET /emails/metrics (resend-compat.md 1.7): the requested metrics, totaled over the range and,
// with dimensions period and/or domain, one row per combination. Counts come from email events,
// all per recipient; rates are ratios rounded to 4 decimals (0 when the denominator is 0), at
// most 1 (an email sent before the range can be delivered inside it).
import {
  emailMetricsCounts,
  metricsPeriods,
  domainNames,
  type Granularity,
  type MetricsCount,
} from '../../store/email-metrics.js';
import type { Queryable } from '../../store/db.js';
import type { EmailEventType } from '../../events/types.js';

/** Counted metrics and their event types; derived ones are computed from these. */
const COUNTED: Record<string, EmailEventType> = {
  sent: 'email.sent',
  delivered: 'email.delivered',
  bounced: 'email.bounced',
  complained: 'email.complained',
  opened: 'email.opened',
  clicked: 'email.clicked',
  suppressed: 'email.suppressed',
  delivery_delayed: 'email.delivery_delayed',
  failed: 'email.failed',
  received: 'email.received',
  unsubscribed: 'email.unsubscribed',
} satisfies Record<string, EmailEventType>;
const DETAIL: Record<string, EmailEventType> = {
  bounced_transient: 'email.bounced',
  bounced_permanent: 'email.bounced',
  bounced_undetermined: 'email.bounced',
  unique_opened: 'email.opened',
  unique_clicked: 'email.clicked',
} satisfies Record<string, EmailEventType>;
const RATES: Record<string, [string, string]> = {
  delivery_rate: ['delivered', 'sent'],
  open_rate: ['unique_opened', 'delivered'],
  click_rate: ['unique_clicked', 'delivered'],
  bounce_rate: ['bounced', 'sent'],
  complaint_rate: ['complained', 'delivered'],
  unsubscribe_rate: ['unsubscribed', 'delivered'],
};
export const METRICS = [...Object.keys(COUNTED), ...Object.keys(DETAIL), ...Object.keys(RATES)];
export const GRANULARITIES: Record<string, Granularity> = {
  hourly: 'hour',
  daily: 'day',
  weekly: 'week',
  monthly: 'month',
};

export interface MetricsRequest {
  teamId: string;
  start: Date;
  end: Date;
  timezone: string;
  granularity: string;
  metrics: string[];
  dimensions: string[];
  domainIds?: string[];
  emailIds?: string[];
}

type Bag = Record<string, number>;

function add(bag: Bag, c: MetricsCount): void {
  const name = Object.keys(COUNTED).find((k) => COUNTED[k] === c.type);
  if (name && c.n) bag[name] = (bag[name] ?? 0) + c.n;
  if (c.uniq !== undefined) {
    if (c.type === 'email.opened') bag.unique_opened = (bag.unique_opened ?? 0) + c.uniq;
    if (c.type === 'email.clicked') bag.unique_clicked = (bag.unique_clicked ?? 0) + c.uniq;
    if (c.type === 'email.bounced') {
      bag.bounced_permanent = (bag.bounced_permanent ?? 0) + (c.permanent ?? 0);
      bag.bounced_transient = (bag.bounced_transient ?? 0) + (c.transient ?? 0);
      bag.bounced_undetermined = (bag.bounced_undetermined ?? 0) + (c.undetermined ?? 0);
    }
  }
}

function finish(bag: Bag, metrics: string[]): Bag {
  const need = (m: string) => bag[m] ?? 0;
  const out: Bag = {};
  for (const m of metrics) {
    const r = RATES[m];
    out[m] = r ? (need(r[1]) ? Math.min(1, Math.round((need(r[0]) / need(r[1])) * 10_000) / 10_000) : 0) : need(m);
  }
  return out;
}

export async function emailMetrics(db: Queryable, r: MetricsRequest) {
  // What must be counted for the requested metrics (rates pull in their operands).
  const wanted = new Set(r.metrics.flatMap((m) => (RATES[m] ? [...RATES[m]] : [m])));
  const types = [...new Set([...wanted].filter((m) => COUNTED[m]).map((m) => COUNTED[m]))];
  const detailTypes = [...new Set([...wanted].filter((m) => DETAIL[m]).map((m) => DETAIL[m]))];
  const byPeriod = r.dimensions.includes('period');
  const byDomain = r.dimensions.includes('domain');
  const g = GRANULARITIES[r.granularity];
  const counts = await emailMetricsCounts(db, {
    teamId: r.teamId,
    start: r.start,
    end: r.end,
    timezone: r.timezone,
    granularity: byPeriod ? g : null,
    byDomain,
    domainIds: r.domainIds,
    emailIds: r.emailIds,
    types,
    detailTypes,
  });
  const totals: Bag = {};
  const rows = new Map<string, { period?: Date; domain_id?: string | null; bag: Bag }>();
  if (byPeriod && !byDomain)
    for (const p of await metricsPeriods(db, r.start, r.end, g, r.timezone))
      rows.set(`${p.toISOString()}|`, { period: p, bag: {} });
  for (const c of counts) {
    add(totals, c);
    if (!byPeriod && !byDomain) continue;
    const key = `${c.period?.toISOString() ?? ''}|${c.domain_id ?? ''}`;
    const row = rows.get(key) ?? { period: c.period ?? undefined, domain_id: c.domain_id, bag: {} };
    add(row.bag, c);
    rows.set(key, row);
  }
  const names = byDomain
    ? await domainNames(db, r.teamId, [
        ...new Set([...rows.values()].map((x) => x.domain_id).filter((x): x is string => Boolean(x))),
      ])
    : new Map();
  const data = [...rows.values()]
    .sort(
      (a, b) =>
        (a.period?.getTime() ?? 0) - (b.period?.getTime() ?? 0) ||
        String(a.domain_id).localeCompare(String(b.domain_id)),
    )
    .map((row) => ({
      ...(byPeriod ? { period: row.period!.toISOString() } : {}),
      ...(byDomain
        ? { domain_id: row.domain_id ?? null, domain_name: row.domain_id ? (names.get(row.domain_id) ?? null) : null }
        : {}),
      ...finish(row.bag, r.metrics),
    }));
  return {
    object: 'metrics' as const,
    start_date: r.start.toISOString(),
    end_date: r.end.toISOString(),
    metrics: r.metrics,
    dimensions: r.dimensions,
    granularity: r.granularity,
    totals: finish(totals, r.metrics),
    ...(byPeriod || byDomain ? { data } : {}),
  };
}

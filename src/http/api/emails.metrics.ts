// GET /emails/metrics → sent, delivered, bounced (permanent/transient), complained, opened, clicked
// and rates over a date range, totaled and per period (hourly/daily/weekly/monthly) and/or domain.
import { Type } from 'typebox';
import { AppError, invalidField } from '../../errors.js';
import { emailMetrics, GRANULARITIES, METRICS } from '../../emails/views/metrics.js';
import { isUuid } from '../../lib/ids.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

const Query = Type.Object({}, { additionalProperties: true });
const MAX_PERIODS = 10_000;
const PERIOD_MS: Record<string, number> = {
  hourly: 3600_000,
  daily: 86400_000,
  weekly: 7 * 86400_000,
  monthly: 28 * 86400_000,
};

/** `a,b`, `x=a&x=b`, or a mix of both. */
const list = (v: unknown): string[] =>
  (Array.isArray(v) ? v : v === undefined ? [] : [v])
    .flatMap((s) => String(s).split(','))
    .map((s) => s.trim())
    .filter(Boolean);

function date(v: unknown, field: string): Date | undefined {
  if (v === undefined || v === '') return undefined;
  const d = new Date(String(v));
  if (Number.isNaN(d.getTime())) throw invalidField(field, 'must be an ISO 8601 date or date-time.');
  return d;
}

function ids(v: unknown, field: string): string[] | undefined {
  const l = list(v);
  if (!l.length) return undefined;
  if (l.length > 100) throw invalidField(field, 'at most 100 ids.');
  for (const id of l)
    if (!isUuid(id)) throw new AppError('invalid_parameter', `The \`${field}\` parameter must hold valid UUIDs.`);
  return l;
}

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails/metrics',
    { schema: { tags: ['Emails'], summary: 'Retrieve email metrics', querystring: Query } },
    async (req) => {
      const q = req.query as Record<string, unknown>;
      const now = new Date();
      let end = date(q.end_date, 'end_date') ?? now;
      if (end > now) end = now;
      const start = date(q.start_date, 'start_date') ?? new Date(end.getTime() - 6 * 86400_000);
      if (start > end) throw invalidField('start_date', 'must be on or before `end_date`.');
      const timezone = q.timezone === undefined ? 'UTC' : String(q.timezone);
      try {
        new Intl.DateTimeFormat('en', { timeZone: timezone });
      } catch {
        throw invalidField('timezone', 'must be an IANA time zone such as `America/New_York`.');
      }
      const granularity = q.granularity === undefined ? 'daily' : String(q.granularity);
      if (!GRANULARITIES[granularity])
        throw invalidField('granularity', 'must be one of hourly, daily, weekly, monthly.');
      const metrics = list(q.metrics);
      for (const m of metrics)
        if (!METRICS.includes(m))
          throw invalidField('metrics', `unknown metric \`${m}\`; known: ${METRICS.join(', ')}.`);
      const dimensions = [...new Set(list(q.dimensions))];
      for (const d of dimensions) {
        if (d === 'email' || d === 'broadcast')
          throw invalidField(
            'dimensions',
            `the \`${d}\` dimension is not supported by this server yet; use period and/or domain.`,
          );
        if (d !== 'period' && d !== 'domain')
          throw invalidField('dimensions', 'must be period, domain, email or broadcast.');
      }
      if (dimensions.includes('period') && (end.getTime() - start.getTime()) / PERIOD_MS[granularity] > MAX_PERIODS) {
        throw invalidField('granularity', `the date range would produce more than ${MAX_PERIODS} periods.`);
      }
      if (q.broadcast_id !== undefined)
        throw invalidField('broadcast_id', 'broadcasts are not supported by this server yet.');
      return emailMetrics(deps.pool, {
        teamId: authOf(req).team_id,
        start,
        end,
        timezone,
        granularity,
        metrics: metrics.length ? metrics : METRICS,
        dimensions,
        domainIds: ids(q.domain_id, 'domain_id'),
        emailIds: ids(q.email_id, 'email_id'),
      });
    },
  );
}

// GET /domains/:id/dmarc-reports → Mailroom extension: the DMARC aggregate reports received for
// the domain over the last `days` (default 30) or the UTC dates `from`..`to`: per-day sums (how
// much mail passed SPF, DKIM and DMARC, how much receivers quarantined or rejected), the sources
// (IPs) that sent as the domain, and the reports themselves.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { dmarcSummaryFor } from '../../domains/dmarc-summary.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { IdParams } from './domains.schema.js';

const Query = Type.Object(
  {
    days: Type.Optional(Type.String({ description: 'days back from now, 1-366 (default 30)' })),
    from: Type.Optional(Type.String({ description: 'first UTC day, YYYY-MM-DD (instead of days)' })),
    to: Type.Optional(Type.String({ description: 'last UTC day, YYYY-MM-DD (default today)' })),
  },
  { additionalProperties: true },
);

const DAY = 86_400_000;
const dateParam = (name: string, v: string): number => {
  const t = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
  if (!Number.isFinite(t))
    throw new AppError('validation_error', `Invalid \`${name}\` parameter: must be a date such as 2026-11-24.`);
  return t;
};

/** The window [since, until) the query asks for. */
function windowOf(q: { days?: string; from?: string; to?: string }): { since: Date; until: Date } {
  if (q.from !== undefined || q.to !== undefined) {
    const until = q.to !== undefined ? dateParam('to', q.to) + DAY : Date.now();
    const since = q.from !== undefined ? dateParam('from', q.from) : until - 30 * DAY;
    if (since >= until || until - since > 366 * DAY)
      throw new AppError(
        'validation_error',
        'Invalid `from` parameter: must be on or before `to`, at most 366 days apart.',
      );
    return { since: new Date(since), until: new Date(until) };
  }
  const days = q.days === undefined ? 30 : Number(q.days);
  if (!Number.isInteger(days) || days < 1 || days > 366)
    throw new AppError('validation_error', 'Invalid `days` parameter: must be a whole number from 1 to 366.');
  return { since: new Date(Date.now() - days * DAY), until: new Date(Date.now() + DAY) };
}

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/domains/:id/dmarc-reports',
    {
      schema: {
        tags: ['Domains'],
        summary: 'DMARC aggregate report summary (Mailroom extension)',
        params: IdParams,
        querystring: Query,
      },
    },
    async (req) => {
      const { since, until } = windowOf(req.query);
      return dmarcSummaryFor(deps.pool, authOf(req).team_id, req.params.id, since, until);
    },
  );
}

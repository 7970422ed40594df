// GET /domains/:id/dmarc-reports → Mailroom extension: the DMARC aggregate reports received for
// the domain over the last `days` (default 30): per-day sums (how much mail passed SPF, DKIM and
// DMARC, how much receivers quarantined or rejected), the sources (IPs) that sent as the domain,
// and the reports themselves.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { teamDomain } from '../../domains/health-service.js';
import { dmarcDaily, dmarcReportList, dmarcSources } from '../../store/dmarc-reports.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { IdParams } from './domains.schema.js';

const Query = Type.Object({ days: Type.Optional(Type.String({ description: 'days back from now, 1-366 (default 30)' })) }, { additionalProperties: true });

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get('/domains/:id/dmarc-reports', {
    schema: { tags: ['Domains'], summary: 'DMARC aggregate report summary (Mailroom extension)', params: IdParams, querystring: Query },
  }, async (req) => {
    const teamId = authOf(req).team_id;
    const days = req.query.days === undefined ? 30 : Number(req.query.days);
    if (!Number.isInteger(days) || days < 1 || days > 366) throw new AppError('validation_error', 'Invalid `days` parameter: must be a whole number from 1 to 366.');
    const d = await teamDomain(deps.pool, teamId, req.params.id);
    const since = new Date(Date.now() - days * 86_400_000);
    const [daily, sources, reports] = await Promise.all([
      dmarcDaily(deps.pool, teamId, d.id, since), dmarcSources(deps.pool, teamId, d.id, since, 100), dmarcReportList(deps.pool, teamId, d.id, since, 100),
    ]);
    return { object: 'dmarc_report_summary', domain_id: d.id, name: d.name, since: since.toISOString(), days: daily, sources, reports };
  });
}

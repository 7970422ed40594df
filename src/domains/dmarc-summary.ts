// The DMARC report summary of one team's domain over a window: per-day sums, the sources that
// sent as the domain, and the reports themselves (GET /domains/:id/dmarc-reports).
import type { Queryable } from '../store/db.js';
import { dmarcDaily, dmarcReportList, dmarcSources } from '../store/dmarc-reports.js';
import { teamDomain } from './health-service.js';

const MAX_ROWS = 100;

export async function dmarcSummaryFor(db: Queryable, teamId: string, id: string, since: Date, until: Date) {
  const d = await teamDomain(db, teamId, id);
  const [days, sources, reports] = await Promise.all([
    dmarcDaily(db, teamId, d.id, since, until),
    dmarcSources(db, teamId, d.id, since, until, MAX_ROWS),
    dmarcReportList(db, teamId, d.id, since, until, MAX_ROWS),
  ]);
  return {
    object: 'dmarc_report_summary' as const,
    domain_id: d.id,
    name: d.name,
    from: since.toISOString(),
    to: until.toISOString(),
    days,
    sources,
    reports,
  };
}

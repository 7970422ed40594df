// Stores the DMARC aggregate reports found in a received message's attachments. Any message
// delivered to a team's receiving domain qualifies (no special address: point rua= at any address
// there, e.g. dmarc@). Each row goes to the team's domain named by its header_from when that is
// the policy domain or a subdomain of it (news.example.com inheriting example.com's DMARC
// record), else to the report's policy
// domain; rows for domains the team does not own are dropped, so nobody can fill another team's
// reports. Runs after the message is stored; never fails it. An attachment that is not read (an
// archive past the size limit, a zip of too many reports, a worker that timed out) is counted in
// mailroom_dmarc_attachments_refused_total and returned, for the caller to log.
import { domainFindByName, type DomainRow } from '../store/domains.js';
import { dmarcReportInsert } from '../store/dmarc-reports.js';
import type { Pool } from '../store/db.js';
import { counters } from '../lib/metrics.js';
import { reportsIn, type DmarcRow, type Refusal } from './dmarc-report.js';

export interface IngestResult {
  stored: number;
  duplicates: number;
  foreign: number;
  refused: Refusal[];
}

export async function ingestDmarcReports(
  pool: Pool,
  teamId: string,
  receivedEmailId: string,
  attachments: Buffer[],
): Promise<IngestResult> {
  const out: IngestResult = { stored: 0, duplicates: 0, foreign: 0, refused: [] };
  const owned = new Map<string, DomainRow | undefined>();
  const domainOf = async (name: string | null): Promise<DomainRow | undefined> => {
    if (!name) return undefined;
    if (!owned.has(name)) owned.set(name, await domainFindByName(pool, teamId, name));
    return owned.get(name);
  };
  for (const bytes of attachments) {
    const read = await reportsIn(bytes);
    if (read.refused) {
      out.refused.push(read.refused);
      counters.dmarcAttachmentsRefused.inc({ reason: read.refused.reason });
    }
    for (const r of read.reports) {
      const groups = new Map<string, { domain: DomainRow; rows: DmarcRow[] }>();
      const policyDomain = await domainOf(r.policy.domain);
      if (policyDomain && !r.rows.length) groups.set(policyDomain.id, { domain: policyDomain, rows: [] });
      for (const row of r.rows) {
        // header_from counts only within the policy domain: a report cannot move rows to an unrelated domain
        const pd = r.policy.domain;
        const hf = row.headerFrom === pd || row.headerFrom?.endsWith(`.${pd}`) ? row.headerFrom : null;
        const d = (await domainOf(hf)) ?? policyDomain;
        if (!d) continue;
        const g = groups.get(d.id) ?? { domain: d, rows: [] };
        g.rows.push(row);
        groups.set(d.id, g);
      }
      if (!groups.size) {
        out.foreign++;
        continue;
      }
      for (const { domain, rows } of groups.values()) {
        const id = await dmarcReportInsert(pool, {
          teamId,
          domainId: domain.id,
          receivedEmailId,
          orgName: r.orgName,
          orgEmail: r.orgEmail,
          reportId: r.reportId,
          dateBegin: r.dateBegin,
          dateEnd: r.dateEnd,
          policy: r.policy,
          rows,
        });
        if (id) out.stored++;
        else out.duplicates++;
      }
    }
  }
  return out;
}

// Stores the DMARC aggregate reports found in a received message's attachments. Any message
// delivered to a team's receiving domain qualifies (no special address: point rua= at any address
// there, e.g. dmarc@); a report is kept only when its policy domain is one of that team's domains,
// so nobody can fill another team's reports. Runs after the message is stored; never fails it.
import { domainFindByName } from '../store/domains.js';
import { dmarcReportInsert } from '../store/dmarc-reports.js';
import type { Pool } from '../store/db.js';
import { reportsIn } from './dmarc-report.js';

export interface IngestResult { stored: number; duplicates: number; foreign: number }

export async function ingestDmarcReports(pool: Pool, teamId: string, receivedEmailId: string, attachments: Buffer[]): Promise<IngestResult> {
  const out: IngestResult = { stored: 0, duplicates: 0, foreign: 0 };
  for (const bytes of attachments) {
    for (const r of reportsIn(bytes)) {
      const domain = await domainFindByName(pool, teamId, r.policy.domain);
      if (!domain) { out.foreign++; continue; }
      const id = await dmarcReportInsert(pool, {
        teamId, domainId: domain.id, receivedEmailId, orgName: r.orgName, orgEmail: r.orgEmail, reportId: r.reportId,
        dateBegin: r.dateBegin, dateEnd: r.dateEnd, policy: r.policy, rows: r.rows,
      });
      if (id) out.stored++; else out.duplicates++;
    }
  }
  return out;
}

// DMARC aggregate reports and their rows (migration 0023), the per-day and per-source sums the
// API shows, and the team's receiving domain names (where a rua= address reaches Mailroom).
import { uuid } from '../lib/ids.js';
import { withTx, type Pool, type Queryable } from './db.js';

export interface DmarcReportInsert {
  teamId: string;
  domainId: string;
  receivedEmailId: string | null;
  orgName: string;
  orgEmail: string | null;
  reportId: string;
  dateBegin: Date;
  dateEnd: Date;
  policy: object;
  rows: {
    sourceIp: string;
    count: number;
    disposition: string;
    dkim: string;
    spf: string;
    headerFrom: string | null;
    authResults: object;
  }[];
}

export async function domainsReceivingNames(db: Queryable, teamId: string): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    'SELECT lower(name) AS name FROM domains WHERE team_id = $1 AND receiving ORDER BY created_at',
    [teamId],
  );
  return rows.map((r) => r.name);
}

/** Stores a report and its rows; returns its id, or null when this reporter's report id is stored already. */
export async function dmarcReportInsert(pool: Pool, r: DmarcReportInsert): Promise<string | null> {
  return withTx(pool, async (tx) => {
    const messages = r.rows.reduce((n, x) => n + x.count, 0);
    const { rows } = await tx.query<{ id: string }>(
      `INSERT INTO dmarc_reports (id, team_id, domain_id, received_email_id, org_name, org_email, report_id, date_begin, date_end, policy, messages)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (team_id, domain_id, org_name, report_id) DO NOTHING RETURNING id`,
      [
        uuid(),
        r.teamId,
        r.domainId,
        r.receivedEmailId,
        r.orgName,
        r.orgEmail,
        r.reportId,
        r.dateBegin,
        r.dateEnd,
        JSON.stringify(r.policy),
        messages,
      ],
    );
    const id = rows[0]?.id;
    if (!id || !r.rows.length) return id ?? null;
    await tx.query(
      `INSERT INTO dmarc_report_rows (report_id, position, source_ip, count, disposition, dkim, spf, header_from, auth_results)
       SELECT $1, n - 1, ip, c, disp, dk, sp, hf, ar::jsonb
       FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[]) WITH ORDINALITY AS t(ip, c, disp, dk, sp, hf, ar, n)`,
      [
        id,
        r.rows.map((x) => x.sourceIp),
        r.rows.map((x) => x.count),
        r.rows.map((x) => x.disposition),
        r.rows.map((x) => x.dkim),
        r.rows.map((x) => x.spf),
        r.rows.map((x) => x.headerFrom),
        r.rows.map((x) => JSON.stringify(x.authResults)),
      ],
    );
    return id;
  });
}

export interface DmarcDay {
  date: string;
  reports: number;
  messages: number;
  spf_pass: number;
  dkim_pass: number;
  dmarc_pass: number;
  quarantined: number;
  rejected: number;
}
export interface DmarcSource {
  source_ip: string;
  messages: number;
  spf_pass: number;
  dkim_pass: number;
  dmarc_pass: number;
  reporters: string[];
}
export interface DmarcReportItem {
  id: string;
  org_name: string;
  org_email: string | null;
  report_id: string;
  date_begin: string;
  date_end: string;
  policy: object;
  messages: number;
  created_at: string;
}

// A row passes DMARC when its policy-evaluated DKIM or SPF result passed (aligned, by definition of policy_evaluated).
const SUMS = `count(DISTINCT r.id)::int AS reports, coalesce(sum(w.count), 0)::bigint AS messages,
  coalesce(sum(w.count) FILTER (WHERE w.spf = 'pass'), 0)::bigint AS spf_pass,
  coalesce(sum(w.count) FILTER (WHERE w.dkim = 'pass'), 0)::bigint AS dkim_pass,
  coalesce(sum(w.count) FILTER (WHERE w.spf = 'pass' OR w.dkim = 'pass'), 0)::bigint AS dmarc_pass`;

/** Per UTC day of each report's begin date, newest first. */
export async function dmarcDaily(
  db: Queryable,
  teamId: string,
  domainId: string,
  since: Date,
  until: Date,
): Promise<DmarcDay[]> {
  const { rows } = await db.query(
    `SELECT to_char(date_trunc('day', r.date_begin AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS date, ${SUMS},
       coalesce(sum(w.count) FILTER (WHERE w.disposition = 'quarantine'), 0)::bigint AS quarantined,
       coalesce(sum(w.count) FILTER (WHERE w.disposition = 'reject'), 0)::bigint AS rejected
     FROM dmarc_reports r LEFT JOIN dmarc_report_rows w ON w.report_id = r.id
     WHERE r.team_id = $1 AND r.domain_id = $2 AND r.date_end >= $3 AND r.date_begin < $4
     GROUP BY 1 ORDER BY 1 DESC`,
    [teamId, domainId, since, until],
  );
  return rows.map((x) => ({
    ...x,
    messages: Number(x.messages),
    spf_pass: Number(x.spf_pass),
    dkim_pass: Number(x.dkim_pass),
    dmarc_pass: Number(x.dmarc_pass),
    quarantined: Number(x.quarantined),
    rejected: Number(x.rejected),
  }));
}

/** Which addresses sent as the domain, most mail first. */
export async function dmarcSources(
  db: Queryable,
  teamId: string,
  domainId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<DmarcSource[]> {
  const { rows } = await db.query(
    `SELECT w.source_ip, ${SUMS}, array_agg(DISTINCT r.org_name ORDER BY r.org_name) AS reporters
     FROM dmarc_reports r JOIN dmarc_report_rows w ON w.report_id = r.id
     WHERE r.team_id = $1 AND r.domain_id = $2 AND r.date_end >= $3 AND r.date_begin < $4
     GROUP BY w.source_ip ORDER BY messages DESC, w.source_ip LIMIT $5`,
    [teamId, domainId, since, until, limit],
  );
  return rows.map((x) => ({
    source_ip: x.source_ip,
    messages: Number(x.messages),
    spf_pass: Number(x.spf_pass),
    dkim_pass: Number(x.dkim_pass),
    dmarc_pass: Number(x.dmarc_pass),
    reporters: [...x.reporters].sort(),
  }));
}

export async function dmarcReportList(
  db: Queryable,
  teamId: string,
  domainId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<DmarcReportItem[]> {
  const { rows } = await db.query(
    `SELECT id, org_name, org_email, report_id, date_begin::text, date_end::text, policy, messages, created_at::text
     FROM dmarc_reports WHERE team_id = $1 AND domain_id = $2 AND date_end >= $3 AND date_begin < $4
     ORDER BY date_begin DESC, id DESC LIMIT $5`,
    [teamId, domainId, since, until, limit],
  );
  return rows.map((x) => ({ ...x, messages: Number(x.messages) }));
}

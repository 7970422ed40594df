// Reads of the insights kept with each email (emails.insights, written by the delivery job through
// store/emails.ts, or here when read before it ran): one email's, and a team's most common over some days.
import type { Queryable } from './db.js';

/** An email's insights, and when they are null (not analyzed yet) what the compose rules read. */
export interface EmailInsightsRow {
  insights: unknown[] | null;
  created_at: string;
  id: string;
  team_id: string;
  domain_id: string | null;
  source: string;
  from_header: string;
  reply_to: string[];
  subject: string;
  html: string | null;
  text_body: string | null;
  headers: { name: string; value: string }[] | null;
  list_unsubscribe: boolean;
  /** a broadcast's email keeps no body: it is rendered from these (delivery/deferred.ts) */
  broadcast_id: string | null;
  personalization: unknown;
  message_id: string;
  to_addrs: string[];
}

/** undefined: no such email; insights null: not analyzed (then the row carries its bodies, else html and text_body are null). */
export async function emailInsightsFind(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<EmailInsightsRow | undefined> {
  const { rows } = await db.query<EmailInsightsRow>(
    `SELECT insights, created_at::text AS created_at, id, team_id, domain_id, source, from_header, reply_to, subject,
       CASE WHEN insights IS NULL THEN html END AS html, CASE WHEN insights IS NULL THEN text_body END AS text_body, headers, list_unsubscribe,
       broadcast_id, personalization, message_id, to_addrs
     FROM emails WHERE team_id = $1 AND id = $2`,
    [teamId, id],
  );
  return rows[0];
}

/** Stores an email's compose findings unless it has insights already; returns the insights it now has. */
export async function emailInsightsFill(
  db: Queryable,
  teamId: string,
  id: string,
  findings: unknown[],
): Promise<unknown[] | null> {
  const { rows } = await db.query<{ insights: unknown[] | null }>(
    'UPDATE emails SET insights = coalesce(insights, $3::jsonb) WHERE team_id = $1 AND id = $2 RETURNING insights',
    [teamId, id, JSON.stringify(findings)],
  );
  return rows[0]?.insights ?? null;
}

export interface TopFinding {
  id: string;
  severity: string;
  title: string;
  fix: string;
  emails: number;
  last_seen: string;
  example_email_id: string;
}

/**
 * A team's findings over the last `days`, most frequent first, counted in emails. Reads at most
 * `sample` of the newest emails of the range (the emails_team_created index), so the answer stays
 * fast for a team sending millions; `sampled` says when that cap was reached.
 */
export async function insightsTopFindings(
  db: Queryable,
  teamId: string,
  days: number,
  sample: number,
  limit = 50,
): Promise<{ analyzed: number; sampled: boolean; data: TopFinding[] }> {
  const { rows } = await db.query<{ analyzed: number; scanned: number; data: TopFinding[] | null }>(
    `WITH e AS (
       SELECT id, created_at, insights FROM emails
       WHERE team_id = $1 AND created_at > now() - make_interval(days => $2)
       ORDER BY created_at DESC LIMIT $3),
     f AS (
       SELECT x->>'id' AS id, count(*)::int AS emails, max(e.created_at) AS last_seen,
              (array_agg(x ORDER BY e.created_at DESC))[1] AS latest, (array_agg(e.id ORDER BY e.created_at DESC))[1] AS example_email_id
       FROM e CROSS JOIN LATERAL jsonb_array_elements(e.insights) AS x
       GROUP BY 1 ORDER BY emails DESC, id LIMIT $4)
     SELECT (SELECT count(*) FROM e WHERE insights IS NOT NULL)::int AS analyzed, (SELECT count(*) FROM e)::int AS scanned,
       (SELECT json_agg(json_build_object('id', id, 'severity', latest->>'severity', 'title', latest->>'title', 'fix', latest->>'fix',
          'emails', emails, 'last_seen', last_seen, 'example_email_id', example_email_id) ORDER BY emails DESC, id) FROM f) AS data`,
    [teamId, days, sample, limit],
  );
  const r = rows[0];
  return { analyzed: r.analyzed, sampled: r.scanned >= sample, data: r.data ?? [] };
}

// Insights as the API serves them: one email's (404 for another team's or an unknown id), and the
// team's most common findings over some days with each rule's own title, fix and justification.
import { notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import { emailInsightsFill, emailInsightsFind, insightsTopFindings, type EmailInsightsRow } from '../store/insights.js';
import { RULES } from './rules.js';
import type { Finding } from './types.js';

export type { EmailInsightsRow };

/**
 * An email's insights. One not analyzed yet (its delivery job has not run: scheduled, queued,
 * canceled) is analyzed now by `analyze` when given (the compose rules, insights/compose-insights.ts)
 * and stored, so it is computed once; without `analyze` (MAILROOM_INSIGHTS=false) it stays `analyzed: false`.
 */
export async function emailInsights(
  db: Queryable,
  teamId: string,
  id: string,
  analyze?: (row: EmailInsightsRow) => Promise<Finding[]>,
): Promise<{ analyzed: boolean; data: Finding[] }> {
  const row = isUuid(id) ? await emailInsightsFind(db, teamId, id.toLowerCase()) : undefined;
  if (!row) throw notFound('Email');
  let insights = row.insights;
  if (insights === null && analyze) insights = await emailInsightsFill(db, teamId, row.id, await analyze(row));
  return { analyzed: insights !== null, data: (insights ?? []) as Finding[] };
}

/** Newest emails of the range read at most (store/insights.ts): bounds the query for very large teams. */
export const TOP_SAMPLE = 200_000;

export async function teamTopInsights(db: Queryable, teamId: string, days: number) {
  const top = await insightsTopFindings(db, teamId, days, TOP_SAMPLE);
  const rules = new Map(RULES.map((r) => [r.id, r]));
  return {
    analyzed: top.analyzed,
    sampled: top.sampled,
    data: top.data
      .map((f) => {
        const rule = rules.get(f.id);
        // A delivery finding's title and fix depend on the reply: the newest one is shown.
        const generic = rule?.stage === 'compose';
        return {
          id: f.id,
          severity: rule?.severity ?? f.severity,
          title: generic ? rule.title : f.title,
          fix: generic ? rule.fix : f.fix,
          why: rule?.why ?? null,
          emails: f.emails,
          share: top.analyzed ? f.emails / top.analyzed : 0,
          last_seen: new Date(f.last_seen).toISOString(),
          example_email_id: f.example_email_id,
        };
      })
      .sort(
        (a, b) =>
          b.emails - a.emails || SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.id.localeCompare(b.id),
      ),
  };
}

const SEVERITY_ORDER: Record<string, number> = { error: 0, warning: 1, info: 2 };

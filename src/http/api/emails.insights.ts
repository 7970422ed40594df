// GET /emails/:id/insights (Mailroom's extension): the email's deliverability findings, computed
// off the request path (by the delivery job at the email's first attempt, or here on the first read
// before that) and extended by its first delivery result that was not a success (insights/rules.ts).
// `analyzed: false` when insights are off (MAILROOM_INSIGHTS); the Resend shapes of /emails stay untouched.
import { Type } from 'typebox';
import { emailInsights, type EmailInsightsRow } from '../../insights/read.js';
import { isDeferred } from '../../delivery/deferred.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './emails.schema.js';

export const FindingSchema = Type.Object({
  id: Type.String({ description: 'the rule that found it, e.g. link-shortener' }),
  severity: Type.Union([Type.Literal('error'), Type.Literal('warning'), Type.Literal('info')]),
  title: Type.String(),
  detail: Type.String({ description: 'what was found in this email' }),
  fix: Type.String({ description: 'what to change' }),
});

const Response = Type.Object({
  object: Type.Literal('list'),
  email_id: Type.String(),
  analyzed: Type.Boolean({
    description:
      'false when insights are off (MAILROOM_INSIGHTS=false); an email not analyzed yet is analyzed on this read',
  }),
  has_more: Type.Boolean(),
  data: Type.Array(FindingSchema),
});

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails/:id/insights',
    {
      schema: {
        tags: ['Emails'],
        summary: 'List the deliverability insights of an email (Mailroom)',
        params: IdParams,
        response: { 200: Response },
      },
    },
    async (req) => {
      const { id } = req.params;
      const teamId = authOf(req).team_id;
      const analyze = deps.config.insights
        ? async (row: EmailInsightsRow) => {
            const domain = row.domain_id ? await deps.domains.sendingDomainById(row.team_id, row.domain_id) : undefined;
            // A broadcast's email keeps no body: rendered as delivery renders it.
            const body = isDeferred(row) ? await deps.bodies.render(row) : undefined;
            return deps.insights.of(body ? { ...row, html: body.html, text_body: body.text } : row, domain?.row);
          }
        : undefined;
      const found = await emailInsights(deps.pool, teamId, id, analyze);
      return {
        object: 'list' as const,
        email_id: id.toLowerCase(),
        analyzed: found.analyzed,
        has_more: false,
        data: found.data,
      };
    },
  );
}

// GET /insights?days=7 (Mailroom's extension): the team's most common deliverability findings over
// the last days (1-90, default 7), counted in emails, most frequent first, each with the newest
// email that has it. Feeds the dashboard's Metrics page.
import { Type } from 'typebox';
import { invalidField } from '../../errors.js';
import { teamTopInsights, TOP_SAMPLE } from '../../insights/read.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

const Query = Type.Object({ days: Type.Optional(Type.String({ description: 'days back from now, 1-90; default 7' })) });
const Item = Type.Object({
  id: Type.String(),
  severity: Type.String(),
  title: Type.String(),
  fix: Type.String(),
  why: Type.Union([Type.String(), Type.Null()], { description: "why receivers care (the rule's justification)" }),
  emails: Type.Integer({ description: 'emails with this finding' }),
  share: Type.Number({ description: 'emails / analyzed' }),
  last_seen: Type.String(),
  example_email_id: Type.String(),
});
const Response = Type.Object({
  object: Type.Literal('list'),
  days: Type.Integer(),
  analyzed: Type.Integer({ description: 'emails analyzed in the range' }),
  sampled: Type.Boolean({ description: `true when only the newest ${TOP_SAMPLE} emails of the range were read` }),
  has_more: Type.Boolean(),
  data: Type.Array(Item),
});

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/insights',
    {
      schema: {
        tags: ['Insights'],
        summary: 'List the most common deliverability insights of the team (Mailroom)',
        querystring: Query,
        response: { 200: Response },
      },
    },
    async (req) => {
      const raw = req.query.days;
      const days = raw === undefined || raw === '' ? 7 : /^\d{1,3}$/.test(raw) ? Number(raw) : NaN;
      if (!(days >= 1 && days <= 90)) throw invalidField('days', 'must be a whole number of days from 1 to 90.');
      const top = await teamTopInsights(deps.pool, authOf(req).team_id, days);
      return {
        object: 'list' as const,
        days,
        analyzed: top.analyzed,
        sampled: top.sampled,
        has_more: false,
        data: top.data,
      };
    },
  );
}

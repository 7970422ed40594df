// GET /usage: the team's consumption in the SDK's GetUsageResponse shape. A self-hosted
// installation has no plan: limits are null (or the configured rate limit), counts are real.
import { teamUsage } from '../../emails/views/usage.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/usage',
    {
      schema: {
        tags: ['Usage'],
        summary: 'Usage of the team: emails today and this month, contacts, domains, rate limit',
      },
    },
    async (req) => {
      return teamUsage(deps.pool, authOf(req).team_id, deps.config.rateLimit);
    },
  );
}

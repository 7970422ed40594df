// Mailroom extension: the reputation guard of a sending domain (reputation/guard.ts).
// GET /domains/:id/reputation: state, thresholds, rates of the last hour and 7 days, hourly points;
// POST /domains/:id/reputation/resume: a person lifts a pause; GET /reputation/alerts: the team's
// domains in warning or paused (the dashboard's banner).
import { authOf, type ApiApp, type ApiDeps, type RequestAuth } from '../types.js';
import { IdParams } from './domains.schema.js';

const tags = ['Domains'];
const actor = (a: RequestAuth) =>
  'session' in a ? `user:${a.session.email}` : 'grant_id' in a ? `oauth_grant:${a.grant_id}` : `api_key:${a.id}`;

export default function register(app: ApiApp, deps: ApiDeps): void {
  const guard = deps.reputationGuard;
  app.get(
    '/domains/:id/reputation',
    {
      schema: {
        tags,
        summary:
          "Mailroom: the domain's reputation guard: state (ok | warning | paused), reason, thresholds, hard-bounce and complaint rates (last hour, last 7 days) and hourly points over 7 days",
        params: IdParams,
      },
    },
    async (req) => guard.view(authOf(req).team_id, req.params.id),
  );
  app.post(
    '/domains/:id/reputation/resume',
    {
      schema: {
        tags,
        summary:
          'Mailroom: lift a pause of the reputation guard (the broadcasts it paused resume; held automation steps run); the guard then judges only mail sent from now on',
        params: IdParams,
      },
    },
    async (req) => guard.resume(authOf(req).team_id, req.params.id, actor(authOf(req))),
  );
  app.get(
    '/reputation/alerts',
    {
      schema: { tags, summary: "Mailroom: the team's sending domains whose reputation guard is in warning or paused" },
    },
    async (req) => guard.alerts(authOf(req).team_id),
  );
}

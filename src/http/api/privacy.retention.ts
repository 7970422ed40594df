// GET/PATCH /privacy/retention (Mailroom extension, issue 29): the team's retention in days per
// kind of data, with defaults and the instance's ceilings (privacy/retention.ts). Above a ceiling: 422.
import { Type } from 'typebox';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const tags = ['Privacy'];

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get('/privacy/retention', { schema: { tags, summary: "The team's retention settings" } }, async (req) =>
    deps.privacy.retention.get(authOf(req).team_id),
  );

  app.patch(
    '/privacy/retention',
    {
      schema: {
        tags,
        summary: "Change the team's retention settings",
        body: Type.Record(Type.String({ maxLength: 64 }), Type.Unknown(), { maxProperties: 16 }),
      },
    },
    async (req) => deps.privacy.retention.update(authOf(req).team_id, req.body, actorOf(req)),
  );
}

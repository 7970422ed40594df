// GET /custom-events and GET /custom-events/names (Mailroom extensions): the team's recorded custom
// events, newest first and paginated (default 20), filtered by `event` (a name) and/or `contact`
// (an id or an address); and the names among the newest events with counts. Read-only.
import { Type } from 'typebox';
import { customEventNames, customEventsRecent } from '../../custom-events/recent.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const tags = ['Events'];
const Query = Type.Intersect([
  PageQuerySchema,
  Type.Object({
    event: Type.Optional(Type.String({ description: 'only events of this name' })),
    contact: Type.Optional(Type.String({ description: 'only events of this contact (an id or an email address)' })),
  }),
]);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/custom-events',
    { schema: { tags, summary: 'List recorded custom events, newest first (Mailroom extension)', querystring: Query } },
    async (req) => {
      return customEventsRecent(deps.pool, authOf(req).team_id, req.query, parsePage(req.query, false));
    },
  );
  app.get(
    '/custom-events/names',
    { schema: { tags, summary: 'The event names among the newest 10,000 events, with counts (Mailroom extension)' } },
    async (req) => {
      return customEventNames(deps.pool, authOf(req).team_id);
    },
  );
}

// GET /contacts/:id_or_email/events (a Mailroom extension): the contact's custom events, newest
// first, paginated like every newer list (default 20). Includes events sent for its address
// before the contact existed.
import { customEventHistory } from '../../custom-events/record.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { ContactParams, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/contacts/:id/events',
    {
      schema: {
        tags,
        summary: "List a contact's custom events (Mailroom extension)",
        params: ContactParams,
        querystring: PageQuerySchema,
      },
    },
    async (req) => {
      return customEventHistory(deps.pool, authOf(req).team_id, req.params.id, parsePage(req.query, false));
    },
  );
}

// GET /contacts/:id_or_email → the contact with its properties (own values, else fallbacks).
// The legacy /audiences/:audience_id/contacts/:id reaches the contact when it is in that audience.
import { contactGet, audienceMember } from '../../contacts/service.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AudienceContactParams, ContactParams, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/contacts/:id',
    { schema: { tags, summary: 'Retrieve a contact by id or email', params: ContactParams } },
    async (req) => {
      return contactGet(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
  app.get(
    '/audiences/:audience_id/contacts/:id',
    { schema: { tags, summary: 'Retrieve a contact of an audience (legacy)', params: AudienceContactParams } },
    async (req) => {
      const teamId = authOf(req).team_id;
      await audienceMember(deps.pool, teamId, req.params.audience_id, req.params.id);
      return contactGet(deps.pool, teamId, req.params.id);
    },
  );
}

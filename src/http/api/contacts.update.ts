// PATCH /contacts/:id_or_email {email?, first_name?, last_name?, unsubscribed?, properties?} →
// {object: "contact", id}. The legacy /audiences/:audience_id/contacts/:id names an audience: 404.
import { contactUpdateFields, audienceMember } from '../../contacts/service.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AudienceContactParams, ContactBody, ContactParams, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.patch(
    '/contacts/:id',
    { schema: { tags, summary: 'Update a contact by id or email', params: ContactParams, body: ContactBody } },
    async (req) => {
      return contactUpdateFields(deps.pool, authOf(req).team_id, req.params.id, req.body ?? {});
    },
  );
  app.patch(
    '/audiences/:audience_id/contacts/:id',
    {
      schema: {
        tags,
        summary: 'Update a contact of an audience (legacy)',
        params: AudienceContactParams,
        body: ContactBody,
      },
    },
    async (req) => {
      const teamId = authOf(req).team_id;
      await audienceMember(deps.pool, teamId, req.params.audience_id, req.params.id);
      return contactUpdateFields(deps.pool, teamId, req.params.id, req.body ?? {});
    },
  );
}

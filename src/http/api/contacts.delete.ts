// DELETE /contacts/:id_or_email → {object: "contact", contact: <the path's value>, deleted: true},
// also when no such contact exists (as Resend). The legacy audience route names an audience: 404.
import { contactRemove, audienceMember } from '../../contacts/service.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AudienceContactParams, ContactParams, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.delete(
    '/contacts/:id',
    { schema: { tags, summary: 'Delete a contact by id or email', params: ContactParams } },
    async (req) => {
      return contactRemove(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
  app.delete(
    '/audiences/:audience_id/contacts/:id',
    { schema: { tags, summary: 'Delete a contact of an audience (legacy)', params: AudienceContactParams } },
    async (req) => {
      const teamId = authOf(req).team_id;
      await audienceMember(deps.pool, teamId, req.params.audience_id, req.params.id);
      return contactRemove(deps.pool, teamId, req.params.id);
    },
  );
}

// GET /contacts/:id_or_email → the contact with its properties (own values, else fallbacks).
// The legacy /audiences/:audience_id/contacts/:id names an audience, which cannot exist yet: 404.
import { contactGet } from '../../contacts/service.js';
import { segmentNotFound } from '../../contacts/refs.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AudienceContactParams, ContactParams, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get('/contacts/:id', { schema: { tags, summary: 'Retrieve a contact by id or email', params: ContactParams } }, async (req) => {
    return contactGet(deps.pool, authOf(req).team_id, req.params.id);
  });
  app.get('/audiences/:audience_id/contacts/:id', { schema: { tags, summary: 'Retrieve a contact of an audience (legacy)', params: AudienceContactParams } }, async () => {
    throw segmentNotFound('Audience');
  });
}

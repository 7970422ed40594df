// POST /contacts → 201 {object: "contact", id}; an address the team already has → 200 with the
// existing id, unchanged. The legacy POST /audiences/:audience_id/contacts names an audience,
// which cannot exist yet: 404.
import { contactCreate } from '../../contacts/service.js';
import { segmentNotFound } from '../../contacts/refs.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AudienceParams, ContactBody, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post('/contacts', { schema: { tags, summary: 'Create a contact', body: ContactBody } }, async (req, reply) => {
    const out = await contactCreate(deps.pool, authOf(req).team_id, req.body ?? {});
    return reply.status(out.created ? 201 : 200).send(out.body);
  });
  app.post('/audiences/:audience_id/contacts', { schema: { tags, summary: 'Create a contact in an audience (legacy)', params: AudienceParams, body: ContactBody } }, async () => {
    throw segmentNotFound('Audience');
  });
}

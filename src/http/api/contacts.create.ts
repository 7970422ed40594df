// POST /contacts → 201 {object: "contact", id}; an address the team already has → 200 with the
// existing id, unchanged. The legacy POST /audiences/:audience_id/contacts adds it to that audience.
import { contactCreate, contactSegmentJoin } from '../../contacts/service.js';
import { segmentOf } from '../../contacts/segments.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AudienceParams, ContactBody, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post('/contacts', { schema: { tags, summary: 'Create a contact', body: ContactBody } }, async (req, reply) => {
    const out = await contactCreate(deps.pool, authOf(req).team_id, req.body ?? {});
    return reply.status(out.created ? 201 : 200).send(out.body);
  });
  app.post(
    '/audiences/:audience_id/contacts',
    {
      schema: { tags, summary: 'Create a contact in an audience (legacy)', params: AudienceParams, body: ContactBody },
    },
    async (req, reply) => {
      const teamId = authOf(req).team_id;
      const audience = await segmentOf(deps.pool, teamId, req.params.audience_id, 'Audience');
      const out = await contactCreate(deps.pool, teamId, { ...(req.body ?? {}), audience_id: audience.id });
      if (!out.created) await contactSegmentJoin(deps.pool, teamId, out.body.id, audience.id); // an existing contact joins the audience
      return reply.status(out.created ? 201 : 200).send(out.body);
    },
  );
}

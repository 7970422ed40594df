// POST /contact-properties {key, type: string|number, fallback_value?} → 201 {object: "contact_property", id}.
import { propertyCreate } from '../../contacts/properties.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { PropertyBody, tags } from './contact-properties.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/contact-properties',
    { schema: { tags, summary: 'Create a contact property', body: PropertyBody } },
    async (req, reply) => {
      return reply.status(201).send(await propertyCreate(deps.pool, authOf(req).team_id, req.body ?? {}));
    },
  );
}

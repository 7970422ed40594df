// POST /contact-properties {key, type: string|number, fallback_value?} → 201 {object: "contact_property", id}.
import type { FastifyInstance } from 'fastify';
import { propertyCreate } from '../../contacts/properties.js';
import { authOf, type ApiDeps } from '../types.js';
import { PropertyBody, tags } from './contact-properties.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/contact-properties', { schema: { tags, summary: 'Create a contact property', body: PropertyBody } }, async (req, reply) => {
    return reply.status(201).send(await propertyCreate(deps.pool, authOf(req).team_id, (req.body ?? {}) as Record<string, unknown>));
  });
}

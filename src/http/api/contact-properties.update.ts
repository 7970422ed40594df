// PATCH /contact-properties/:id {fallback_value} → {object: "contact_property", id}; key and type are fixed.
import type { FastifyInstance } from 'fastify';
import { propertyUpdate } from '../../contacts/properties.js';
import { authOf, type ApiDeps } from '../types.js';
import { PropertyBody, PropertyParams, tags } from './contact-properties.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.patch('/contact-properties/:id', { schema: { tags, summary: 'Update a contact property', params: PropertyParams, body: PropertyBody } }, async (req) => {
    return propertyUpdate(deps.pool, authOf(req).team_id, (req.params as { id: string }).id, (req.body ?? {}) as Record<string, unknown>);
  });
}

// GET /contact-properties/:id → {object: "contact_property", id, key, type, fallback_value, created_at}.
import type { FastifyInstance } from 'fastify';
import { propertyGet } from '../../contacts/properties.js';
import { authOf, type ApiDeps } from '../types.js';
import { PropertyParams, tags } from './contact-properties.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/contact-properties/:id', { schema: { tags, summary: 'Retrieve a contact property', params: PropertyParams } }, async (req) => {
    return propertyGet(deps.pool, authOf(req).team_id, (req.params as { id: string }).id);
  });
}

// GET /contact-properties/:id → {object: "contact_property", id, key, type, fallback_value, created_at}.
import { propertyGet } from '../../contacts/properties.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { PropertyParams, tags } from './contact-properties.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/contact-properties/:id',
    { schema: { tags, summary: 'Retrieve a contact property', params: PropertyParams } },
    async (req) => {
      return propertyGet(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
}

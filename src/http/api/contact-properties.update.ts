// PATCH /contact-properties/:id {fallback_value} → {object: "contact_property", id}; key and type are fixed.
import { propertyUpdate } from '../../contacts/properties.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { PropertyBody, PropertyParams, tags } from './contact-properties.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.patch(
    '/contact-properties/:id',
    { schema: { tags, summary: 'Update a contact property', params: PropertyParams, body: PropertyBody } },
    async (req) => {
      return propertyUpdate(deps.pool, authOf(req).team_id, req.params.id, req.body ?? {});
    },
  );
}

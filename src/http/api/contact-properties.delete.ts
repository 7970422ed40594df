// DELETE /contact-properties/:id → {object: "contact_property", deleted: true, id}; the contacts'
// values for it go too. An unknown id is 404.
import { propertyRemove } from '../../contacts/properties.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { PropertyParams, tags } from './contact-properties.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.delete(
    '/contact-properties/:id',
    { schema: { tags, summary: 'Delete a contact property', params: PropertyParams } },
    async (req) => {
      return propertyRemove(deps.pool, authOf(req).team_id, req.params.id);
    },
  );
}

// GET /contact-properties → legacy list (everything when no limit is given: a team has few).
import { propertyList } from '../../contacts/properties.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { tags } from './contact-properties.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/contact-properties',
    { schema: { tags, summary: 'List contact properties', querystring: PageQuerySchema } },
    async (req) => {
      return propertyList(deps.pool, authOf(req).team_id, parsePage(req.query, true));
    },
  );
}

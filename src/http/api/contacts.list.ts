// GET /contacts → legacy list (everything when no limit is given), items without properties.
// A segment's contacts: `?segment_id=`, /segments/:id/contacts, the legacy /audiences/:id/contacts.
import { Type } from 'typebox';
import { contactsList, segmentContacts } from '../../contacts/service.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AudienceParams, tags } from './contacts.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  const querystring = Type.Intersect([PageQuerySchema, Type.Object({ segment_id: Type.Optional(Type.String()) })]);
  app.get('/contacts', { schema: { tags, summary: 'List contacts', querystring } }, async (req) => {
    const q = req.query;
    if (q.segment_id !== undefined) return segmentContacts(deps.pool, authOf(req).team_id, q.segment_id, parsePage(req.query, true));
    return contactsList(deps.pool, authOf(req).team_id, parsePage(req.query, true));
  });
  app.get('/segments/:segment_id/contacts', { schema: { tags, summary: 'List the contacts of a segment', params: Type.Object({ segment_id: Type.String() }), querystring: PageQuerySchema } }, async (req) => {
    return segmentContacts(deps.pool, authOf(req).team_id, req.params.segment_id, parsePage(req.query, true));
  });
  app.get('/audiences/:audience_id/contacts', { schema: { tags, summary: 'List the contacts of an audience (legacy)', params: AudienceParams, querystring: PageQuerySchema } }, async (req) => {
    return segmentContacts(deps.pool, authOf(req).team_id, req.params.audience_id, parsePage(req.query, true), 'Audience');
  });
}

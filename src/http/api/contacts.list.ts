// GET /contacts → legacy list (everything when no limit is given), items without properties.
// With Mailroom's `search`, `filter`, `ids` or `properties` (README, "Finding contacts"): pages of 20 by default.
// A segment's contacts: `?segment_id=` or `?audience_id=` (the legacy name of the same rows),
// /segments/:id/contacts (what the SDK sends for segmentId and audienceId), /audiences/:id/contacts.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { contactsList, segmentContacts } from '../../contacts/service.js';
import { contactsSearch, isSearch } from '../../contacts/search.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AudienceParams, MatchQuery, tags } from './contacts.schema.js';

const ListQuery = Type.Intersect([PageQuerySchema, MatchQuery]);

/** The one segment the query names, and the word its 404 uses; two different ones are refused, not guessed. */
function filterOf(q: {
  segment_id?: string;
  audience_id?: string;
}): { id: string; what: 'Segment' | 'Audience' } | undefined {
  if (q.segment_id !== undefined && q.audience_id !== undefined && q.segment_id !== q.audience_id) {
    throw new AppError(
      'validation_error',
      'Invalid `segment_id` parameter: it names a different segment than `audience_id`; give one of them.',
    );
  }
  if (q.segment_id !== undefined) return { id: q.segment_id, what: 'Segment' };
  if (q.audience_id !== undefined) return { id: q.audience_id, what: 'Audience' };
  return undefined;
}

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get('/contacts', { schema: { tags, summary: 'List contacts', querystring: ListQuery } }, async (req) => {
    // Mailroom's search parameters (search, filter, ids, properties): contacts/search.ts.
    if (isSearch(req.query))
      return contactsSearch(deps.pool, authOf(req).team_id, req.query, parsePage(req.query, false));
    const only = filterOf(req.query);
    if (only) return segmentContacts(deps.pool, authOf(req).team_id, only.id, parsePage(req.query, true), only.what);
    return contactsList(deps.pool, authOf(req).team_id, parsePage(req.query, true));
  });
  app.get(
    '/segments/:segment_id/contacts',
    {
      schema: {
        tags,
        summary: 'List the contacts of a segment',
        params: Type.Object({ segment_id: Type.String() }),
        querystring: PageQuerySchema,
      },
    },
    async (req) => {
      return segmentContacts(deps.pool, authOf(req).team_id, req.params.segment_id, parsePage(req.query, true));
    },
  );
  app.get(
    '/audiences/:audience_id/contacts',
    {
      schema: {
        tags,
        summary: 'List the contacts of an audience (legacy)',
        params: AudienceParams,
        querystring: PageQuerySchema,
      },
    },
    async (req) => {
      return segmentContacts(
        deps.pool,
        authOf(req).team_id,
        req.params.audience_id,
        parsePage(req.query, true),
        'Audience',
      );
    },
  );
}

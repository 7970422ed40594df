// /segments (resend-compat 7.2) and the deprecated /audiences alias on the same rows. One file
// for the resource: its endpoints are small and alike.
import { Type } from 'typebox';
import { segmentCreate, segmentGet, segmentRemove, segmentsList, segmentUpdate } from '../../contacts/segments.js';
import { segmentPreview } from '../../contacts/segment-filters.js';
import { AppError } from '../../errors.js';
import { PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const Id = Type.Object({ id: Type.String() });
const Filter = Type.Unknown({
  description: 'Mailroom extension: a rule tree (README, "Filter segments"); null = a fixed list of members',
});
const Body = Type.Object(
  { name: Type.Optional(Type.Unknown({ description: 'up to 256 characters' })), filter: Type.Optional(Filter) },
  { additionalProperties: true },
);
const ListQuery = Type.Intersect([
  PageQuerySchema,
  Type.Object({
    counts: Type.Optional(
      Type.String({
        description: 'Mailroom: true adds contacts_count to each item (members or filter matches, capped)',
      }),
    ),
  }),
]);
const PreviewBody = Type.Object({ filter: Filter }, { additionalProperties: true });

export default function register(app: ApiApp, deps: ApiDeps): void {
  for (const [base, object, tags] of [
    ['/segments', 'segment', ['Segments']],
    ['/audiences', 'audience', ['Audiences (deprecated)']],
  ] as const) {
    app.post(
      base,
      {
        schema: {
          tags: [...tags],
          summary: `Create ${object === 'audience' ? 'an audience' : 'a segment'}`,
          body: Body,
        },
      },
      async (req, reply) => {
        return reply.status(201).send(await segmentCreate(deps.pool, authOf(req).team_id, req.body ?? {}, object));
      },
    );
    app.get(base, { schema: { tags: [...tags], summary: `List ${object}s`, querystring: ListQuery } }, async (req) => {
      const counts = req.query.counts;
      if (counts !== undefined && counts !== 'true' && counts !== 'false')
        throw new AppError('validation_error', 'Invalid `counts` parameter: must be true or false.');
      return segmentsList(deps.pool, authOf(req).team_id, parsePage(req.query, true), counts === 'true');
    });
    app.get(
      `${base}/:id`,
      {
        schema: {
          tags: [...tags],
          summary: `Retrieve ${object === 'audience' ? 'an audience' : 'a segment'}`,
          params: Id,
        },
      },
      async (req) => {
        return segmentGet(deps.pool, authOf(req).team_id, req.params.id, object);
      },
    );
    app.delete(
      `${base}/:id`,
      {
        schema: {
          tags: [...tags],
          summary: `Delete ${object === 'audience' ? 'an audience' : 'a segment'} (its contacts stay)`,
          params: Id,
        },
      },
      async (req) => {
        return segmentRemove(deps.pool, authOf(req).team_id, req.params.id, object);
      },
    );
  }
  app.post(
    '/segments/preview',
    {
      schema: {
        tags: ['Segments'],
        summary: 'Count and show the first contacts matching a filter (Mailroom extension)',
        body: PreviewBody,
      },
    },
    async (req) => {
      return segmentPreview(deps.pool, authOf(req).team_id, req.body ?? {});
    },
  );
  app.patch(
    '/segments/:id',
    { schema: { tags: ['Segments'], summary: 'Rename a segment, or set or clear its filter', params: Id, body: Body } },
    async (req) => {
      return segmentUpdate(deps.pool, authOf(req).team_id, req.params.id, req.body ?? {});
    },
  );
}

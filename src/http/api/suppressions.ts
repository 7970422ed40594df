// /suppressions (resend-compat.md 7.7): the team's suppression list. Paths accept an id or an
// email (raw or percent-encoded). One file for the resource: its endpoints are small and alike.
import { Type } from 'typebox';
import { AppError, notFound } from '../../errors.js';
import {
  suppressionAddress as address,
  suppressionGet,
  suppressionRemove,
  suppressionsList,
  suppressManually,
} from '../../suppressions/service.js';
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

const IdOrEmail = Type.Object({ id: Type.String() });
const tags = ['Suppressions'];

const view = (s: { id: string; email: string; origin: string; source_id: string | null; created_at: string }) => ({
  object: 'suppression',
  ...s,
});

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/suppressions',
    {
      schema: {
        tags,
        summary: 'Suppress an address',
        body: Type.Object({ email: Type.Optional(Type.String()) }, { additionalProperties: true }),
      },
    },
    async (req, reply) => {
      const row = await suppressManually(deps.pool, authOf(req).team_id, address('email', req.body?.email));
      return reply.status(201).send({ object: 'suppression', id: row.id });
    },
  );

  app.post(
    '/suppressions/batch/add',
    {
      schema: {
        tags,
        summary: 'Suppress up to 100 addresses',
        body: Type.Object({ emails: Type.Array(Type.String(), { maxItems: 100 }) }, { additionalProperties: true }),
      },
    },
    async (req, reply) => {
      const teamId = authOf(req).team_id;
      const emails = req.body.emails.map((e, i) => address(`emails[${i}]`, e));
      const rows = [];
      for (const e of emails) rows.push(await suppressManually(deps.pool, teamId, e));
      return reply.status(201).send({ data: rows.map((r) => ({ object: 'suppression', id: r.id })) });
    },
  );

  app.post(
    '/suppressions/batch/remove',
    {
      schema: {
        tags,
        summary: 'Remove up to 100 suppressions',
        body: Type.Object(
          {
            emails: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
            ids: Type.Optional(Type.Array(Type.String(), { maxItems: 100 })),
          },
          { additionalProperties: true },
        ),
      },
    },
    async (req) => {
      const teamId = authOf(req).team_id;
      const body = req.body;
      const keys = [...(body.ids ?? []), ...(body.emails ?? [])];
      if (!keys.length) throw new AppError('missing_required_field', 'Missing `emails` or `ids` field.');
      const data = [];
      for (const k of keys) data.push({ object: 'suppression', ...(await suppressionRemove(deps.pool, teamId, k)) });
      return { data };
    },
  );

  app.get(
    '/suppressions',
    {
      schema: {
        tags,
        summary: 'List suppressions',
        querystring: Type.Intersect([PageQuerySchema, Type.Object({ origin: Type.Optional(Type.String()) })]),
      },
    },
    async (req) => {
      const q = req.query;
      const page = await suppressionsList(deps.pool, authOf(req).team_id, parsePage(req.query, true), q.origin);
      return listBody({ has_more: page.has_more, data: page.data.map(view) });
    },
  );

  app.get(
    '/suppressions/:id',
    { schema: { tags, summary: 'Retrieve a suppression by id or email', params: IdOrEmail } },
    async (req) => {
      return view(await suppressionGet(deps.pool, authOf(req).team_id, decodeURIComponent(req.params.id)));
    },
  );

  app.delete(
    '/suppressions/:id',
    { schema: { tags, summary: 'Remove a suppression by id or email', params: IdOrEmail } },
    async (req) => {
      const removed = await suppressionRemove(deps.pool, authOf(req).team_id, decodeURIComponent(req.params.id));
      if (!removed.deleted) throw notFound('Suppression');
      return { object: 'suppression', id: removed.id, deleted: true };
    },
  );
}

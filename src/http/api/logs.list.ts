// GET /logs → the team's API request logs, newest first, Resend cursor pagination; optional
// filters (our extension, used by the dashboard): status (404, or a class: 4xx), endpoint, method, api_key_id.
import { Type } from 'typebox';
import { requestLogsList } from '../../request-logs/queries.js';
import { listBody, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

const Query = Type.Object(
  {
    limit: Type.Optional(Type.String()),
    after: Type.Optional(Type.String()),
    before: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    endpoint: Type.Optional(Type.String()),
    method: Type.Optional(Type.String()),
    api_key_id: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/logs',
    { schema: { tags: ['Logs'], summary: 'List API request logs', querystring: Query } },
    async (req) => {
      const q = req.query;
      return listBody(await requestLogsList(deps.pool, authOf(req).team_id, parsePage(q, false), q));
    },
  );
}

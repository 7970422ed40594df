// GET /logs/:id → one request log with its request and response bodies.
import { Type } from 'typebox';
import { requestLogGet } from '../../request-logs/queries.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/logs/:id',
    { schema: { tags: ['Logs'], summary: 'Retrieve an API request log', params: Type.Object({ id: Type.String() }) } },
    async (req) => {
      const { id } = req.params;
      const log = await requestLogGet(deps.pool, authOf(req).team_id, id);
      return { object: 'log', ...log };
    },
  );
}

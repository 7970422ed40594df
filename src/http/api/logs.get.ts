// GET /logs/:id → one request log with its request and response bodies.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { requestLogGet } from '../../request-logs/queries.js';
import { authOf, type ApiDeps } from '../types.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/logs/:id', { schema: { tags: ['Logs'], summary: 'Retrieve an API request log', params: Type.Object({ id: Type.String() }) } }, async (req) => {
    const { id } = req.params as { id: string };
    const log = await requestLogGet(deps.pool, authOf(req).team_id, id);
    return { object: 'log', ...log };
  });
}

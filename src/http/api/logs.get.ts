// GET /logs/:id → one request log with its request and response bodies.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { requestLogFind } from '../../store/request-logs.js';
import { authOf, type ApiDeps } from '../types.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/logs/:id', { schema: { tags: ['Logs'], summary: 'Retrieve an API request log', params: Type.Object({ id: Type.String() }) } }, async (req) => {
    const { id } = req.params as { id: string };
    if (!isUuid(id)) throw new AppError('invalid_parameter', 'The `logId` must be a valid UUID.');
    const log = await requestLogFind(deps.pool, authOf(req).team_id, id);
    if (!log) throw notFound('Log');
    return { object: 'log', ...log };
  });
}

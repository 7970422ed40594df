// GET /logs → the team's API request logs, newest first, Resend cursor pagination; optional
// filters (our extension, used by the dashboard): status, endpoint, method, api_key_id.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { requestLogList } from '../../store/request-logs.js';
import { listBody, parsePage } from '../pagination.js';
import { authOf, type ApiDeps } from '../types.js';

const Query = Type.Object({
  limit: Type.Optional(Type.String()), after: Type.Optional(Type.String()), before: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()), endpoint: Type.Optional(Type.String()), method: Type.Optional(Type.String()), api_key_id: Type.Optional(Type.String()),
}, { additionalProperties: true });

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/logs', { schema: { tags: ['Logs'], summary: 'List API request logs', querystring: Query } }, async (req) => {
    const q = req.query as Record<string, string | undefined>;
    if (q.status !== undefined && !/^\d{3}$/.test(q.status)) throw new AppError('validation_error', 'Invalid `status` parameter: must be an HTTP status code.');
    if (q.api_key_id !== undefined && !isUuid(q.api_key_id)) throw new AppError('invalid_parameter', 'The `api_key_id` must be a valid UUID.');
    const page = parsePage(q, false);
    return listBody(await requestLogList(deps.pool, authOf(req).team_id, page, {
      status: q.status ? Number(q.status) : undefined, endpoint: q.endpoint, method: q.method?.toUpperCase(), apiKeyId: q.api_key_id,
    }));
  });
}

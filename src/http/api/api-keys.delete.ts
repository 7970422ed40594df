// DELETE /api-keys/:id → {object: "list" (sic, Resend's wire), id, deleted: true}; unknown → 404.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { authOf, type ApiDeps } from '../types.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.delete('/api-keys/:id', { schema: { tags: ['API keys'], summary: 'Delete an API key', params: Type.Object({ id: Type.String() }) } }, async (req) => {
    const { id } = req.params as { id: string };
    if (!isUuid(id) || !(await deps.apiKeys.delete(authOf(req).team_id, id))) throw notFound('API key');
    return { object: 'list', id, deleted: true };
  });
}

// PATCH /api-keys/:id {name} → {object: "api_key", id}.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { notFound } from '../../errors.js';
import { authOf, type ApiDeps } from '../types.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.patch('/api-keys/:id', {
    schema: { tags: ['API keys'], summary: 'Rename an API key', params: Type.Object({ id: Type.String() }), body: Type.Object({ name: Type.String({ maxLength: 50 }) }, { additionalProperties: true }) },
  }, async (req) => {
    const { id } = req.params as { id: string };
    if (!(await deps.apiKeys.rename(authOf(req).team_id, id, (req.body as { name: string }).name))) throw notFound('API key');
    return { object: 'api_key', id };
  });
}

// PATCH /api-keys/:id {name} → {object: "api_key", id}.
import { Type } from 'typebox';
import { notFound } from '../../errors.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.patch(
    '/api-keys/:id',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Rename an API key',
        params: Type.Object({ id: Type.String() }),
        body: Type.Object({ name: Type.String({ maxLength: 50 }) }, { additionalProperties: true }),
      },
    },
    async (req) => {
      const { id } = req.params;
      if (!(await deps.apiKeys.rename(authOf(req).team_id, id, req.body.name, actorOf(req)))) throw notFound('API key');
      return { object: 'api_key', id };
    },
  );
}

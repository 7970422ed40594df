// DELETE /api-keys/:id → {object: "list" (sic, Resend's wire), id, deleted: true}; unknown → 404.
import { Type } from 'typebox';
import { notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.delete(
    '/api-keys/:id',
    { schema: { tags: ['API keys'], summary: 'Delete an API key', params: Type.Object({ id: Type.String() }) } },
    async (req) => {
      const { id } = req.params;
      if (!isUuid(id) || !(await deps.apiKeys.delete(authOf(req).team_id, id, actorOf(req)))) throw notFound('API key');
      return { object: 'list', id, deleted: true };
    },
  );
}

// DELETE /domains/:id → {object: "domain", id, deleted: true}.
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './domains.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.delete('/domains/:id', { schema: { tags: ['Domains'], summary: 'Delete a domain', params: IdParams } }, async (req) => {
    return deps.domains.remove(authOf(req).team_id, (req.params as { id: string }).id);
  });
}

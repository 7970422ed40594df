// POST /domains/:id/verify → checks every record by DNS now, then {object: "domain", id}.
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './domains.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/domains/:id/verify', { schema: { tags: ['Domains'], summary: 'Verify a domain', params: IdParams } }, async (req) => {
    return deps.domains.verify(authOf(req).team_id, (req.params as { id: string }).id);
  });
}

// GET /domains/:id → the domain with each record and its verification status.
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './domains.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/domains/:id', { schema: { tags: ['Domains'], summary: 'Retrieve a domain', params: IdParams } }, async (req) => {
    return deps.domains.get(authOf(req).team_id, (req.params as { id: string }).id);
  });
}

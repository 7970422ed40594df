// POST /domains → 201 with the DNS records to publish (no `object` key, as Resend).
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { CreateDomainBody } from './domains.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/domains', { schema: { tags: ['Domains'], summary: 'Add a sending domain', body: CreateDomainBody } }, async (req, reply) => {
    return reply.status(201).send(await deps.domains.create(authOf(req).team_id, req.body as object));
  });
}

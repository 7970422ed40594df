// Liveness (/health: the process answers) and readiness (/ready: the database answers and the
// process is not shutting down). Public: no key, no rate limit, not logged.
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from './types.js';

export function registerHealth(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/health', { config: { public: true }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/ready', { config: { public: true }, schema: { hide: true } }, async (_req, reply) => {
    const ready = await deps.isReady().catch(() => false);
    return reply.status(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready' });
  });
}

// GET /dashboard-api/emails/:id/raw → the email's raw MIME as text (headers, parts), for the
// dashboard's Raw and Headers tabs and the Mailbox. Authenticated like the API (session or key).
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import type { ApiDeps } from '../types.js';
import { authOf } from '../types.js';
import { TAGS } from './common.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/dashboard-api/emails/:id/raw', { schema: { tags: TAGS, summary: 'Raw MIME of an email', hide: true } }, async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!isUuid(id)) throw notFound('Email');
    const { rows } = await deps.pool.query<{ raw: Buffer | null; purged: boolean }>(
      'SELECT raw, raw_purged_at IS NOT NULL AS purged FROM emails WHERE team_id = $1 AND id = $2', [authOf(req).team_id, id]);
    if (!rows[0]) throw notFound('Email');
    if (!rows[0].raw) throw notFound(`The message body (removed after ${deps.config.retentionDays} days)`);
    return reply.type('text/plain; charset=utf-8').header('cache-control', 'private, no-store').send(rows[0].raw);
  });
}

// GET /emails/:id → the email record with `last_event`.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { emailFindById } from '../../store/emails.js';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/emails/:id', { schema: { tags: ['Emails'], summary: 'Retrieve an email', params: IdParams } }, async (req) => {
    const { id } = req.params as { id: string };
    const email = isUuid(id) ? await emailFindById(deps.pool, authOf(req).team_id, id) : undefined;
    if (!email) throw notFound('Email');
    return { object: 'email', ...email, topic_id: null };
  });
}

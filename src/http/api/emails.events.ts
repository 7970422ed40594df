// GET /emails/:id/events (Mailroom's extension): every event of the email, oldest first, with its
// webhook data and what happened (SMTP reply, MX host, TLS, attempt).
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { emailEventsList, emailLastEvent } from '../../store/emails.js';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/emails/:id/events', { schema: { tags: ['Emails'], summary: 'List the events of an email', params: IdParams } }, async (req) => {
    const { id } = req.params as { id: string };
    const teamId = authOf(req).team_id;
    if (!isUuid(id) || !(await emailLastEvent(deps.pool, teamId, id))) throw notFound('Email');
    const events = await emailEventsList(deps.pool, teamId, id);
    return { object: 'list', has_more: false, data: events.map((e) => ({ object: 'event', ...e })) };
  });
}

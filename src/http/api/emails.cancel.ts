// POST /emails/:id/cancel → cancels a scheduled email: {object: "email", id}; last_event canceled.
import type { FastifyInstance } from 'fastify';
import { AppError, notFound } from '../../errors.js';
import { isUuid, uuid } from '../../lib/ids.js';
import { emailCancel, emailLastEvent } from '../../store/emails.js';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.post('/emails/:id/cancel', { schema: { tags: ['Emails'], summary: 'Cancel a scheduled email', params: IdParams } }, async (req) => {
    const { id } = req.params as { id: string };
    const teamId = authOf(req).team_id;
    const last = isUuid(id) ? await emailLastEvent(deps.pool, teamId, id) : undefined;
    if (!last) throw notFound('Email');
    const canceled = await emailCancel(deps.pool, teamId, id, { id: uuid(), email_id: id, team_id: teamId, type: 'email.canceled', recipient: null, data: { email_id: id }, created_at: new Date().toISOString() });
    if (!canceled) throw new AppError('validation_error', `Only scheduled emails can be canceled; this email is \`${last}\`.`);
    return { object: 'email', id };
  });
}

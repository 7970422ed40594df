// PATCH /emails/:id {scheduled_at} → reschedules a scheduled email: {object: "email", id}.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { AppError, notFound } from '../../errors.js';
import { isUuid } from '../../lib/ids.js';
import { parseScheduledAt } from '../../emails/schedule.js';
import { emailLastEvent, emailReschedule } from '../../store/emails.js';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.patch('/emails/:id', {
    schema: { tags: ['Emails'], summary: 'Reschedule an email', params: IdParams, body: Type.Object({ scheduled_at: Type.String() }, { additionalProperties: true }) },
  }, async (req) => {
    const { id } = req.params as { id: string };
    const teamId = authOf(req).team_id;
    const last = isUuid(id) ? await emailLastEvent(deps.pool, teamId, id) : undefined;
    if (!last) throw notFound('Email');
    const at = parseScheduledAt((req.body as { scheduled_at: string }).scheduled_at, new Date());
    if (!(await emailReschedule(deps.pool, teamId, id, at))) {
      throw new AppError('validation_error', `Only scheduled emails can be rescheduled; this email is \`${last}\`.`);
    }
    return { object: 'email', id };
  });
}

// PATCH /emails/:id {scheduled_at} → reschedules a scheduled email: {object: "email", id}.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { emailRescheduleScheduled } from '../../emails/records.js';
import { authOf, type ApiDeps } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.patch('/emails/:id', {
    schema: { tags: ['Emails'], summary: 'Reschedule an email', params: IdParams, body: Type.Object({ scheduled_at: Type.String() }, { additionalProperties: true }) },
  }, async (req) => {
    const { id } = req.params as { id: string };
    await emailRescheduleScheduled(deps.pool, authOf(req).team_id, id, (req.body as { scheduled_at: string }).scheduled_at);
    return { object: 'email', id };
  });
}

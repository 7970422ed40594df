// PATCH /emails/:id {scheduled_at} → reschedules a scheduled email: {object: "email", id}.
import { Type } from 'typebox';
import { emailRescheduleScheduled } from '../../emails/views/records.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.patch(
    '/emails/:id',
    {
      schema: {
        tags: ['Emails'],
        summary: 'Reschedule an email',
        params: IdParams,
        body: Type.Object({ scheduled_at: Type.String() }, { additionalProperties: true }),
      },
    },
    async (req) => {
      const { id } = req.params;
      await emailRescheduleScheduled(deps.pool, authOf(req).team_id, id, req.body.scheduled_at);
      return { object: 'email', id };
    },
  );
}

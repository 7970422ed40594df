// POST /emails/:id/cancel → cancels a scheduled email: {object: "email", id}; last_event canceled.
import { emailCancelScheduled } from '../../emails/views/records.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/emails/:id/cancel',
    { schema: { tags: ['Emails'], summary: 'Cancel a scheduled email', params: IdParams } },
    async (req) => {
      const { id } = req.params;
      await emailCancelScheduled(deps.pool, authOf(req).team_id, id);
      return { object: 'email', id };
    },
  );
}

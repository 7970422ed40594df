// GET /emails/:id → the email record with `last_event`.
import { emailGet } from '../../emails/views/records.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails/:id',
    { schema: { tags: ['Emails'], summary: 'Retrieve an email', params: IdParams } },
    async (req) => {
      const { id } = req.params;
      const email = await emailGet(deps.pool, authOf(req).team_id, id, deps.bodies);
      return { object: 'email', ...email };
    },
  );
}

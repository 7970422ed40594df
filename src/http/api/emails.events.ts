// GET /emails/:id/events (Mailroom's extension): every event of the email, oldest first, with its
// webhook data and what happened (SMTP reply, MX host, TLS, attempt).
import { emailTimeline } from '../../emails/views/records.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './emails.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/emails/:id/events',
    { schema: { tags: ['Emails'], summary: 'List the events of an email', params: IdParams } },
    async (req) => {
      const { id } = req.params;
      const events = await emailTimeline(deps.pool, authOf(req).team_id, id);
      return { object: 'list', has_more: false, data: events.map((e) => ({ object: 'event', ...e })) };
    },
  );
}

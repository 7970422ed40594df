// GET /dashboard-api/emails/:id/raw → the email's raw MIME as text (headers, parts), for the
// dashboard's Raw and Headers tabs and the Mailbox. Authenticated like the API (session or key).

import { emailRawOf } from '../../emails/views/records.js';
import { Type } from 'typebox';
import type { ApiApp, ApiDeps } from '../types.js';
import { authOf } from '../types.js';
import { TAGS } from './common.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/dashboard-api/emails/:id/raw',
    { schema: { tags: TAGS, summary: 'Raw MIME of an email', hide: true, params: Type.Object({ id: Type.String() }) } },
    async (req, reply) => {
      const { id } = req.params;
      const raw = await emailRawOf(deps.pool, authOf(req).team_id, id, deps.config.retentionDays, deps.bodies);
      return reply.type('text/plain; charset=utf-8').header('cache-control', 'private, no-store').send(raw);
    },
  );
}

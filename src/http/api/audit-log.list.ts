// GET /audit-log → the team's audit log, newest first, Resend cursor pagination (Mailroom extension).
// Filters: actor (an actor's id, or its address or key name), actor_kind, action (a name or a
// family: api_key.*), target_kind, target_id, since and until (dates or timestamps). Full-access
// keys and dashboard owners/admins only.
import { Type } from 'typebox';
import { auditLogList } from '../../audit/read.js';
import { listBody, parsePage } from '../pagination.js';
import { assertAuditReader, auditFilterProps } from './audit-log.schema.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

const Query = Type.Object(
  {
    limit: Type.Optional(Type.String()),
    after: Type.Optional(Type.String()),
    before: Type.Optional(Type.String()),
    ...auditFilterProps,
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/audit-log',
    {
      schema: {
        tags: ['Audit log'],
        summary: 'List audit log entries (Mailroom extension)',
        description:
          'Administrative actions on the team, append-only and hash-chained (see `mailroom audit verify`). ' +
          'Full-access API keys and dashboard owners and admins.',
        querystring: Query,
      },
    },
    async (req) => {
      const auth = authOf(req);
      assertAuditReader(auth);
      const q = req.query;
      return listBody(await auditLogList(deps.pool, auth.team_id, parsePage(q, false), q));
    },
  );
}

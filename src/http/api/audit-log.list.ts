// GET /audit-log → the team's audit log, newest first, Resend cursor pagination (Mailroom extension).
// Filters: actor (an actor's id, or its address or key name), actor_kind, action (a name or a
// family: api_key.*), target_kind, target_id, since and until (dates or timestamps). Full-access
// keys and dashboard owners/admins only.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { auditLogList } from '../../audit/read.js';
import { listBody, parsePage } from '../pagination.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

const Query = Type.Object(
  {
    limit: Type.Optional(Type.String()),
    after: Type.Optional(Type.String()),
    before: Type.Optional(Type.String()),
    actor: Type.Optional(Type.String({ maxLength: 200 })),
    actor_kind: Type.Optional(Type.String({ maxLength: 20 })),
    action: Type.Optional(Type.String({ maxLength: 100 })),
    target_kind: Type.Optional(Type.String({ maxLength: 50 })),
    target_id: Type.Optional(Type.String({ maxLength: 200 })),
    since: Type.Optional(Type.String({ maxLength: 40 })),
    until: Type.Optional(Type.String({ maxLength: 40 })),
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
      if (auth.permission !== 'full_access') throw new AppError('restricted_api_key');
      if ('session' in auth && auth.session.role === 'member')
        throw new AppError('forbidden', 'Only owners and admins can read the audit log.');
      const q = req.query;
      return listBody(await auditLogList(deps.pool, auth.team_id, parsePage(q, false), q));
    },
  );
}

// GET /dashboard-api/audit-log.csv: the audit log with GET /audit-log's filters as a CSV download
// (audit/csv.ts: formula-looking cells neutralised). Same readers as the list: owners and admins
// of the session's team, or a full-access key.
import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { auditCsv } from '../../audit/csv.js';
import { auditFilterOf } from '../../audit/read.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { noStore, TAGS } from './common.js';
import { assertAuditReader, auditFilterProps } from '../api/audit-log.schema.js';

const Query = Type.Object(auditFilterProps, { additionalProperties: true });

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/dashboard-api/audit-log.csv',
    {
      onRequest: noStore,
      schema: { tags: TAGS, summary: 'The audit log as CSV', hide: true, querystring: Query },
    },
    async (req, reply) => {
      const auth = authOf(req);
      assertAuditReader(auth);
      auditFilterOf(req.query); // a bad filter is a 422 before any byte is sent
      const day = new Date().toISOString().slice(0, 10);
      reply
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="audit-log-${day}.csv"`);
      return reply.send(Readable.from(auditCsv(deps.pool, auth.team_id, req.query)));
    },
  );
}

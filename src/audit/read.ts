// Reading the audit log (GET /audit-log, the dashboard's page and its CSV): the checks on filters,
// then the SQL in store/audit-log.ts. Writing is record.ts's; nothing changes an entry.
import { invalidField } from '../errors.js';
import { timestampProblem, timestampText } from '../lib/timestamp-text.js';
import type { Queryable } from '../store/db.js';
import { auditList, type AuditFilter } from '../store/audit-log.js';
import type { PageQuery } from '../store/paginate.js';
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS, AUDIT_TARGET_KINDS } from './actions.js';

export interface AuditQuery {
  actor?: string;
  actor_kind?: string;
  action?: string;
  target_kind?: string;
  target_id?: string;
  since?: string;
  until?: string;
}

const FAMILIES = new Set(AUDIT_ACTIONS.map((a) => `${a.split('.')[0]}.*`));

function when(field: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const problem = timestampProblem(v);
  if (problem) throw invalidField(field, problem);
  return timestampText(v);
}

function bounded(field: string, v: string | undefined, max: number): string | undefined {
  if (v !== undefined && (v.length === 0 || v.length > max))
    throw invalidField(field, `must be 1 to ${max} characters.`);
  return v;
}

export function auditFilterOf(q: AuditQuery): AuditFilter {
  if (q.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(q.action) && !FAMILIES.has(q.action))
    throw invalidField('action', `must be one of ${AUDIT_ACTIONS.join(', ')} (or a family: api_key.*).`);
  if (q.actor_kind !== undefined && !(AUDIT_ACTOR_KINDS as readonly string[]).includes(q.actor_kind))
    throw invalidField('actor_kind', `must be one of ${AUDIT_ACTOR_KINDS.join(', ')}.`);
  if (q.target_kind !== undefined && !(AUDIT_TARGET_KINDS as readonly string[]).includes(q.target_kind))
    throw invalidField('target_kind', `must be one of ${AUDIT_TARGET_KINDS.join(', ')}.`);
  const since = when('since', q.since);
  const until = when('until', q.until);
  if (since && until && Date.parse(since) > Date.parse(until))
    throw invalidField('until', 'must not be before `since`.');
  return {
    actorId: bounded('actor', q.actor, 200),
    actorKind: q.actor_kind,
    action: q.action,
    targetKind: q.target_kind,
    targetId: bounded('target_id', q.target_id, 200),
    since,
    until,
  };
}

export function auditLogList(db: Queryable, teamId: string, page: PageQuery, q: AuditQuery) {
  return auditList(db, teamId, page, auditFilterOf(q));
}

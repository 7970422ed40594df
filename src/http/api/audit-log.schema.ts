// The audit log's filters and who may read it: shared by GET /audit-log and the dashboard's CSV export.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { RequestAuth } from '../types.js';

/** Filters: actor (an actor's id, or its address or key name), actor_kind, action, target, since/until. */
export const auditFilterProps = {
  actor: Type.Optional(Type.String({ maxLength: 200 })),
  actor_kind: Type.Optional(Type.String({ maxLength: 20 })),
  action: Type.Optional(Type.String({ maxLength: 100 })),
  target_kind: Type.Optional(Type.String({ maxLength: 50 })),
  target_id: Type.Optional(Type.String({ maxLength: 200 })),
  since: Type.Optional(Type.String({ maxLength: 40 })),
  until: Type.Optional(Type.String({ maxLength: 40 })),
};

/** Full-access keys and dashboard owners and admins read the audit log; members and sending keys do not. */
export function assertAuditReader(auth: RequestAuth): void {
  if (auth.permission !== 'full_access') throw new AppError('restricted_api_key');
  if ('session' in auth && auth.session.role === 'member')
    throw new AppError('forbidden', 'Only owners and admins can read the audit log.');
}

// Who an audit entry names: built from a request's origin (its client address and user agent, as the
// request log takes them: http/hooks.ts) and the authenticated party.
import type { AuditActor } from './record.js';

export interface RequestOrigin {
  ip: string | null;
  user_agent: string | null;
}

export function originOf(req: { ip?: string; headers: Record<string, unknown> }): RequestOrigin {
  const ua = req.headers['user-agent'];
  return { ip: req.ip ?? null, user_agent: typeof ua === 'string' ? ua : null };
}

export const userActor = (u: { userId: string; email: string }, o: RequestOrigin): AuditActor => ({
  kind: 'user',
  id: u.userId,
  display: u.email,
  ...o,
});

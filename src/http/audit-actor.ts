// The audit actor of an authenticated API request (audit/record.ts): a dashboard session's user, an
// API key (its name shown), or an OAuth grant; with the request's client address and user agent.
import { originOf } from '../audit/actor.js';
import type { AuditActor } from '../audit/record.js';
import type { RequestAuth } from './types.js';

export function actorOf(req: { auth?: RequestAuth; ip?: string; headers: Record<string, unknown> }): AuditActor {
  const o = originOf(req);
  const a = req.auth;
  if (a && 'session' in a) return { kind: 'user', id: a.session.userId, display: a.session.email, ...o };
  if (a && 'grant_id' in a) return { kind: 'oauth', id: a.grant_id, display: 'OAuth grant', ...o };
  if (a?.id) return { kind: 'api_key', id: a.id, display: a.name ?? null, ...o };
  return { kind: 'system', id: null, display: null, ...o };
}

// The audit log's hash chain, pure: an entry's hash is sha256_hex(previous hash + canonical JSON of
// its fields), canonical meaning object keys sorted at every depth and no spaces. Written by
// record.ts, checked by verify.ts; both must hash exactly these fields.
import { createHash } from 'node:crypto';
import type { AuditRow } from '../store/audit-log.js';

export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v ?? null);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

export type HashedFields = Omit<AuditRow, 'hash' | 'prev_hash'>;

export function entryHash(prevHash: string, r: HashedFields): string {
  const fields = {
    id: r.id,
    team_id: r.team_id,
    seq: r.seq,
    created_at: r.created_at,
    actor_kind: r.actor_kind,
    actor_id: r.actor_id,
    actor_display: r.actor_display,
    ip: r.ip,
    user_agent: r.user_agent,
    action: r.action,
    target_kind: r.target_kind,
    target_id: r.target_id,
    summary: r.summary,
  };
  return createHash('sha256')
    .update(prevHash + canonicalJson(fields))
    .digest('hex');
}

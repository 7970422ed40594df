// Writing an audit entry: in the caller's transaction (so a failed action leaves none), behind the
// team's chain-head row lock (store/audit-log.ts: concurrent writers in any process queue there, the
// chain never forks), hashed onto the previous entry (chain.ts). Summaries never carry secrets:
// keys that name one are dropped before anything is stored.
import pg from 'pg';
import { uuid } from '../lib/ids.js';
import { storableText } from '../request-logs/recorder.js';
import { type Queryable, type Tx, withTx } from '../store/db.js';
import { auditHeadLock, auditInsert } from '../store/audit-log.js';
import type { AuditAction, AuditActorKind, AuditTargetKind } from './actions.js';
import { entryHash } from './chain.js';

/** Who acted and from where (http/audit-actor.ts builds it from a request). */
export interface AuditActor {
  kind: AuditActorKind;
  id: string | null;
  display: string | null;
  ip: string | null;
  user_agent: string | null;
}

export const SYSTEM_ACTOR: AuditActor = { kind: 'system', id: null, display: 'mailroom', ip: null, user_agent: null };
/** The operator at the command line (`mailroom api-keys ...`). */
export const CLI_ACTOR: AuditActor = { kind: 'system', id: null, display: 'mailroom CLI', ip: null, user_agent: null };

export interface AuditEvent {
  action: AuditAction;
  target: { kind: AuditTargetKind; id: string | null };
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

/** Never stored, whatever a caller puts in a summary: tokens, passwords, secrets and their hashes. */
const SECRET = /token|secret|password|private_key|api_key|authorization|recovery|totp_seed|^code$|hash/i;
const MAX_STRING = 500;

export function cleanSummary(v: unknown, depth = 0): unknown {
  if (depth > 6) return '[elided: too deep]';
  if (typeof v === 'string') {
    const s = storableText(v);
    return s.length > MAX_STRING ? `${s.slice(0, MAX_STRING)}…` : s;
  }
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.slice(0, 50).map((x) => cleanSummary(x, depth + 1));
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (SECRET.test(k) || x === undefined) continue;
      out[storableText(k)] = cleanSummary(x, depth + 1);
    }
    return out;
  }
  return v ?? null;
}

const cut = (s: string | null, n: number) => (s === null ? null : storableText(s).slice(0, n));

/** Runs fn in a transaction: a new one on a pool, or the caller's (a client is assumed to be in one). */
export function inTx<T>(db: Queryable, fn: (tx: Tx | Queryable) => Promise<T>): Promise<T> {
  return db instanceof pg.Pool ? withTx(db, fn) : fn(db);
}

/** Appends one entry to the team's chain in the caller's transaction (a pool: its own). */
export async function auditRecord(db: Queryable, teamId: string, actor: AuditActor, e: AuditEvent): Promise<void> {
  await inTx(db, async (tx) => {
    const head = await auditHeadLock(tx, teamId);
    const summary: Record<string, unknown> = {};
    if (e.before) summary.before = cleanSummary(e.before);
    if (e.after) summary.after = cleanSummary(e.after);
    const fields = {
      id: uuid(),
      team_id: teamId,
      seq: head.seq + 1,
      created_at: new Date().toISOString(),
      actor_kind: actor.kind,
      actor_id: cut(actor.id, 200),
      actor_display: cut(actor.display, 200),
      ip: cut(actor.ip, 100),
      user_agent: cut(actor.user_agent, 500),
      action: e.action,
      target_kind: e.target.kind,
      target_id: cut(e.target.id, 200),
      summary,
    };
    await auditInsert(tx, { ...fields, prev_hash: head.hash, hash: entryHash(head.hash, fields) });
  });
}

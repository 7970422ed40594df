// Idempotency-Key semantics for the send endpoints (resend-compat.md section 2), held in the
// database so they hold across API processes: the first request claims the key; a replay with
// the same body gets the original response; another body is 409 invalid_idempotent_request; a
// replay while the first is in flight is 409 concurrent_idempotent_requests. The key is completed
// by the same statement that commits the emails (see EmailSender), so a crash cannot leave an
// email sent and its key unanswered. Failed requests release the key.
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import type { Pool } from '../store/db.js';
import type { IdempotencyCompletion } from '../store/emails.js';
import { idempotencyClaim, idempotencyRelease, idempotencyTakeOver } from '../store/idempotency.js';

const TTL_MS = 24 * 3600_000;
/** An in-flight claim older than this belongs to a request that died (nothing was committed). */
const ABANDONED_MS = 120_000;

export interface IdempotencyScope {
  teamId: string;
  method: string;
  path: string;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

export type Responder = (
  complete: (status: number, body: unknown) => IdempotencyCompletion | undefined,
) => Promise<{ status: number; body: unknown }>;

/**
 * Runs `fn` under the key (or directly without one). `fn` receives `complete(status, body)`, which
 * returns the completion to commit together with the emails.
 */
export async function withIdempotency(
  pool: Pool,
  scope: IdempotencyScope,
  key: string | undefined,
  body: unknown,
  fn: Responder,
): Promise<{ status: number; body: unknown }> {
  if (key === undefined) return fn(() => undefined);
  if (key.length < 1 || key.length > 256) throw new AppError('invalid_idempotency_key');
  const k = {
    ...scope,
    key,
    hash: createHash('sha256')
      .update(canonical(body ?? null))
      .digest('hex'),
  };
  const existing = await idempotencyClaim(pool, k);
  if (existing === 'racing') throw new AppError('concurrent_idempotent_requests');
  if (existing !== 'claimed') {
    const expired = existing.age_ms > TTL_MS;
    const abandoned = existing.state === 'in_flight' && existing.age_ms > ABANDONED_MS;
    if (expired || abandoned) {
      if (!(await idempotencyTakeOver(pool, k, expired ? TTL_MS : ABANDONED_MS, expired ? 'any' : 'in_flight')))
        throw new AppError('concurrent_idempotent_requests');
    } else if (existing.state === 'in_flight') {
      // Checked before the body: the first request may still fail and release the key.
      throw new AppError('concurrent_idempotent_requests');
    } else if (existing.request_hash !== k.hash) {
      throw new AppError('invalid_idempotent_request');
    } else {
      return { status: existing.response_status ?? 200, body: existing.response_body };
    }
  }
  try {
    return await fn((status, responseBody) => ({
      team_id: scope.teamId,
      method: scope.method,
      path: scope.path,
      key,
      response_status: status,
      response_body: responseBody,
    }));
  } catch (err) {
    await idempotencyRelease(pool, k).catch(() => undefined);
    throw err;
  }
}

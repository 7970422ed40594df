// The reputation guard's hook on THE send path (reputation/guard.ts supplies it): a paused domain
// refuses list mail (sources 'broadcast' and 'automation', and each page a broadcast expands), and transactional mail only when
// MAILROOM_REPUTATION_PAUSE_TRANSACTIONAL is on, with AppError('domain_paused'). A broadcast's
// expansion turns that refusal into a pause with the reason; an automation step is held (retried).
import { AppError } from '../errors.js';
import type { DomainRow } from '../store/domains.js';

/** Throws AppError('domain_paused') when this send must wait for a person to resume the domain. */
export type SendGuard = (teamId: string, domain: DomainRow, bulk: boolean) => Promise<void>;

/** How often a held automation step looks again (resuming the domain also makes it due at once). */
export const GUARD_RECHECK_MS = 15_000;

/** When a job refused by the guard should run again; undefined for any other error. */
export function guardHoldUntil(err: unknown): Date | undefined {
  return err instanceof AppError && err.code === 'domain_paused' ? new Date(Date.now() + GUARD_RECHECK_MS) : undefined;
}

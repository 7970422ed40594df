// Verification state machine, pure: a record's next state from its check outcome and history,
// and the domain's aggregate status from its records (resend-compat.md 5.3).
// pending → verified; pending for 72 h → failed; verified → temporary_failure when the record
// vanishes → failed after 72 h more (or verified again when it comes back).
import type { RecordCheck, RecordState } from '../store/domains.js';
import type { CheckOutcome } from './dns-check.js';
import type { DnsRecordSpec } from './records.js';

export const GIVE_UP_MS = 72 * 3600_000;

export function nextRecordCheck(
  prev: RecordCheck | undefined,
  outcome: CheckOutcome,
  now: Date,
  verifyStartedAt: Date,
): RecordCheck {
  const at = now.toISOString();
  if (outcome.result === 'found') return { status: 'verified', checked_at: at };
  const wasVerified = prev?.status === 'verified' || prev?.status === 'temporary_failure';
  if (wasVerified) {
    const since = prev?.failing_since ?? at;
    const expired = now.getTime() - Date.parse(since) > GIVE_UP_MS;
    return {
      status: expired && outcome.result === 'missing' ? 'failed' : 'temporary_failure',
      checked_at: at,
      failing_since: since,
      detail: outcome.detail,
    };
  }
  const expired = now.getTime() - verifyStartedAt.getTime() > GIVE_UP_MS;
  return {
    status: expired && outcome.result === 'missing' ? 'failed' : 'pending',
    checked_at: at,
    detail: outcome.detail,
  };
}

type CapabilityState = 'verified' | 'pending' | 'failed' | 'temporary_failure' | 'not_started';

function capabilityState(states: RecordState[]): CapabilityState {
  if (states.every((s) => s === 'verified')) return 'verified';
  if (states.includes('failed')) return 'failed';
  if (states.includes('temporary_failure')) return 'temporary_failure';
  if (states.every((s) => s === 'not_started')) return 'not_started';
  return 'pending';
}

/** Per-capability state of the required records (`sending`, `receiving`). */
export function capabilityStates(
  specs: DnsRecordSpec[],
  checks: Record<string, RecordCheck>,
): Partial<Record<'sending' | 'receiving', CapabilityState>> {
  const out: Partial<Record<'sending' | 'receiving', CapabilityState>> = {};
  for (const cap of ['sending', 'receiving'] as const) {
    const req = specs.filter((s) => s.requiredFor === cap);
    if (req.length) out[cap] = capabilityState(req.map((s) => checks[s.key]?.status ?? 'not_started'));
  }
  return out;
}

export function domainStatus(specs: DnsRecordSpec[], checks: Record<string, RecordCheck>): string {
  const states = Object.values(capabilityStates(specs, checks));
  if (!states.length || states.every((s) => s === 'not_started')) return 'not_started';
  if (states.every((s) => s === 'verified')) return 'verified';
  if (states.every((s) => s === 'failed')) return 'failed';
  if (states.includes('temporary_failure') && !states.includes('failed')) return 'temporary_failure';
  if (states.includes('verified')) return states.includes('failed') ? 'partially_failed' : 'partially_verified';
  return states.includes('failed') ? 'failed' : 'pending';
}

/** When the background job looks again: often while pending, hourly later, daily once verified. */
export function nextCheckAt(status: string, now: Date, verifyStartedAt: Date | null): Date | null {
  const age = verifyStartedAt ? now.getTime() - verifyStartedAt.getTime() : 0;
  switch (status) {
    case 'verified':
      return new Date(now.getTime() + 6 * 3600_000);
    case 'failed':
      return null; // until the user asks again
    case 'temporary_failure':
      return new Date(now.getTime() + 3600_000);
    default:
      return new Date(now.getTime() + (age < 3600_000 ? 5 * 60_000 : 3600_000));
  }
}

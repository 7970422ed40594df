// Mailroom's answers read through the real `resend` SDK, typed with the fields Mailroom adds that the
// SDK's types do not know (a broadcast's `stats` and pause, its 'sending'/'paused'/'canceled' states,
// an automation's `reentry`, a segment's `filter` and counts). Each getter fails on an SDK error and
// checks that the added fields are in the answer before it says they are.
import assert from 'node:assert/strict';
import type {
  GetAutomationResponseSuccess,
  GetBroadcastResponseSuccess,
  GetSegmentResponseSuccess,
  Resend,
} from 'resend';
import type { Broadcasts } from '../../src/broadcasts/service.js';
import type { Rule } from '../../src/lib/filter-rule.js';
import type { Reentry } from '../../src/store/automations.js';
import type { BroadcastStatus } from '../../src/store/broadcasts.js';

/** GET /broadcasts/:id: Resend's fields, every status Mailroom has, then its progress (the server's own `view`). */
export type MailroomBroadcast = Omit<GetBroadcastResponseSuccess, 'status'> & {
  status: BroadcastStatus;
  stats: Awaited<ReturnType<Broadcasts['view']>>['stats'];
  completed_at: string | null;
  paused_at: string | null;
  pause_reason: string | null;
};

/** GET /automations/:id with Mailroom's re-entry setting. */
export type MailroomAutomation = GetAutomationResponseSuccess & { reentry: Reentry };

/** GET /segments/:id with Mailroom's filter (null for a fixed list) and member count. */
export type MailroomSegment = GetSegmentResponseSuccess & {
  filter: Rule | null;
  contacts_count: number | null;
  contacts_count_capped: boolean;
  filter_error?: string;
};

function extended<T>(r: { data: unknown; error: unknown }, fields: string[]): T {
  assert.equal(r.error, null, JSON.stringify(r.error));
  for (const f of fields)
    assert.ok(f in (r.data as object), `Mailroom's \`${f}\` is in the answer: ${JSON.stringify(r.data)}`);
  return r.data as T;
}

export const broadcastGet = async (resend: Resend, id: string) =>
  extended<MailroomBroadcast>(await resend.broadcasts.get(id), ['stats', 'completed_at', 'paused_at', 'pause_reason']);

export const automationGet = async (resend: Resend, id: string) =>
  extended<MailroomAutomation>(await resend.automations.get(id), ['reentry']);

export const segmentGet = async (resend: Resend, id: string) =>
  extended<MailroomSegment>(await resend.segments.get(id), ['filter', 'contacts_count', 'contacts_count_capped']);

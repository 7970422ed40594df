// The team's usage in the shape of the SDK's GetUsageResponse. Self-hosted Mailroom has no plan,
// so every quota is `null` (no limit); the counts are real, the rate limit is the configured one.
import type { Queryable } from '../../store/db.js';
import { usageCounts } from '../../store/usage.js';

export async function teamUsage(db: Queryable, teamId: string, rateLimit: number, now = new Date()) {
  const dayStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const nextDay = new Date(dayStart.getTime() + 86_400_000).toISOString();
  const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
  const c = await usageCounts(db, teamId, dayStart, monthStart);
  return {
    object: 'usage' as const,
    emails: {
      daily: {
        used: c.sent_day + c.received_day,
        limit: null,
        sent: c.sent_day,
        received: c.received_day,
        resets_at: nextDay,
      },
      monthly: {
        used: c.sent_month + c.received_month,
        limit: null,
        sent: c.sent_month,
        received: c.received_month,
        resets_at: nextMonth,
      },
    },
    contacts: { used: c.contacts, limit: null },
    segments: { used: 0, limit: null },
    broadcasts: { used: 0, limit: null },
    ai_credits: { used: 0, limit: null, next_increase_at: null },
    automation_runs: { used: 0, limit: null, resets_at: nextMonth },
    domains: { used: c.domains, limit: null },
    rate_limit: { limit: rateLimit, duration: '1s' },
  };
}

// Counts behind GET /usage, per team: emails sent and received since a day's and a month's start
// (UTC), contacts and domains. Index-backed: emails by (team_id, created_at), received mail likewise.
import type { Queryable } from './db.js';

export interface UsageCounts {
  sent_day: number;
  sent_month: number;
  received_day: number;
  received_month: number;
  contacts: number;
  domains: number;
}

export async function usageCounts(
  db: Queryable,
  teamId: string,
  dayStart: Date,
  monthStart: Date,
): Promise<UsageCounts> {
  const { rows } = await db.query<UsageCounts>(
    `SELECT
       (SELECT count(*) FROM emails WHERE team_id = $1 AND created_at >= $2)::int AS sent_day,
       (SELECT count(*) FROM emails WHERE team_id = $1 AND created_at >= $3)::int AS sent_month,
       (SELECT count(*) FROM received_emails WHERE team_id = $1 AND created_at >= $2)::int AS received_day,
       (SELECT count(*) FROM received_emails WHERE team_id = $1 AND created_at >= $3)::int AS received_month,
       (SELECT count(*) FROM contacts WHERE team_id = $1)::int AS contacts,
       (SELECT count(*) FROM domains WHERE team_id = $1)::int AS domains`,
    [teamId, dayStart, monthStart],
  );
  return rows[0];
}

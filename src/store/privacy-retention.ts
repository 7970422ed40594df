// The per-team purges that have no global counterpart (issue 29): tracking data (the IP address and
// user agent of opens and clicks), email events and custom events, finished automation runs. Only
// teams with a setting in team_retention are touched; each call is one batch of at most `limit` rows.
import type { Queryable } from './db.js';
import { stripTracking } from './privacy-erasure.js';

const TRACKED = `(t.data->'open'->>'ipAddress' IS NOT NULL OR t.data->'open'->>'userAgent' IS NOT NULL
  OR t.data->'click'->>'ipAddress' IS NOT NULL OR t.data->'click'->>'userAgent' IS NOT NULL)`;

export async function retentionPurgeTracking(db: Queryable, limit = 5000): Promise<number> {
  const { rowCount } = await db.query(
    `UPDATE email_events e SET data = ${stripTracking('e.data')} WHERE e.id IN (
       SELECT t.id FROM team_retention tr JOIN email_events t ON t.team_id = tr.team_id
       WHERE tr.tracking_days IS NOT NULL AND t.type IN ('email.opened', 'email.clicked')
         AND t.created_at < now() - make_interval(days => tr.tracking_days) AND ${TRACKED} LIMIT $1)`,
    [limit],
  );
  return rowCount ?? 0;
}

export async function retentionPurgeEvents(db: Queryable, limit = 5000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM email_events WHERE id IN (
       SELECT t.id FROM team_retention tr JOIN email_events t ON t.team_id = tr.team_id
       WHERE tr.events_days IS NOT NULL AND t.created_at < now() - make_interval(days => tr.events_days) LIMIT $1)`,
    [limit],
  );
  const { rowCount: custom } = await db.query(
    `DELETE FROM custom_events WHERE id IN (
       SELECT t.id FROM team_retention tr JOIN custom_events t ON t.team_id = tr.team_id
       WHERE tr.events_days IS NOT NULL AND t.created_at < now() - make_interval(days => tr.events_days) LIMIT $1)`,
    [limit],
  );
  return (rowCount ?? 0) + (custom ?? 0);
}

export async function retentionPurgeAutomationRuns(db: Queryable, limit = 5000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM automation_runs WHERE id IN (
       SELECT t.id FROM team_retention tr JOIN automation_runs t ON t.team_id = tr.team_id
       WHERE tr.automation_runs_days IS NOT NULL AND t.status <> 'running'
         AND t.created_at < now() - make_interval(days => tr.automation_runs_days) LIMIT $1)`,
    [limit],
  );
  return rowCount ?? 0;
}

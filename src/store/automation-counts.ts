// What the journey canvas shows on each step of an automation: runs that reached it, wait there,
// exited or failed there, and the emails its send steps produced with their delivered/opened/clicked.
import { withTx, type Pool } from './db.js';

export interface StepCountsRow {
  key: string;
  reached: number;
  waiting: number;
  exited: number;
  failed: number;
}
export interface StepEmailCountsRow {
  key: string;
  emails: number;
  delivered: number;
  opened: number;
  clicked: number;
}

/**
 * Per step of one automation: its runs that reached the step (a step row exists once a run reaches
 * it), are at it now (pending, running or waiting, the run still running), exited there (the run
 * ended, completed or cancelled, with this step finished and none of the steps it connects to
 * reached: the last step of its path), and failed there; and, for each send_email step, the emails
 * it produced (a completed send's output names its email, the id derived from run and key) with how
 * many were ever delivered, opened, clicked (distinct emails, as the Metrics page counts them).
 * Two statements in one transaction (one snapshot), each one pass: the runs through
 * automation_runs_list (automation_id), their step rows by primary key (run_id, key), a send's
 * email by primary key and its events through email_events_email (email_id). The cost is linear in
 * the automation's step rows and sent emails, not in the team's: an automation with 100,000 runs
 * of 5 steps reads ~500,000 step rows and probes the events of each sent email (not measured here:
 * expect hundreds of milliseconds at that size). Bounded by a 10 s statement timeout, past which the
 * request fails instead of holding a connection. `connections` is the saved graph's.
 */
export async function automationStepCounts(
  pool: Pool,
  automationId: string,
  connections: { from: string; to: string }[],
): Promise<{ steps: StepCountsRow[]; emails: StepEmailCountsRow[] }> {
  return withTx(pool, async (db) => {
    await db.query(`SET LOCAL statement_timeout = '10s'`);
    const { rows: steps } = await db.query<StepCountsRow>(
      `WITH c AS (SELECT * FROM unnest($2::text[], $3::text[]) AS c (from_key, to_key))
     SELECT s.key, count(*)::int AS reached,
       count(*) FILTER (WHERE s.status IN ('pending', 'running', 'waiting') AND r.status = 'running')::int AS waiting,
       count(*) FILTER (WHERE r.status IN ('completed', 'cancelled') AND s.status IN ('completed', 'skipped')
         AND NOT EXISTS (SELECT 1 FROM c JOIN automation_run_steps n ON n.run_id = s.run_id AND n.key = c.to_key WHERE c.from_key = s.key))::int AS exited,
       count(*) FILTER (WHERE s.status = 'failed')::int AS failed
     FROM automation_runs r JOIN automation_run_steps s ON s.run_id = r.id
     WHERE r.automation_id = $1
     GROUP BY s.key`,
      [automationId, connections.map((c) => c.from), connections.map((c) => c.to)],
    );
    const { rows: emails } = await db.query<StepEmailCountsRow>(
      `WITH m AS (
       SELECT s.key, (s.output->>'email_id')::uuid AS email_id
       FROM automation_runs r JOIN automation_run_steps s ON s.run_id = r.id
       WHERE r.automation_id = $1 AND s.type = 'send_email' AND s.status = 'completed' AND s.output ? 'email_id')
     SELECT m.key, count(*)::int AS emails,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM email_events ev WHERE ev.email_id = e.id AND ev.type = 'email.delivered'))::int AS delivered,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM email_events ev WHERE ev.email_id = e.id AND ev.type = 'email.opened'))::int AS opened,
       count(*) FILTER (WHERE EXISTS (SELECT 1 FROM email_events ev WHERE ev.email_id = e.id AND ev.type = 'email.clicked'))::int AS clicked
     FROM m JOIN emails e ON e.id = m.email_id
     GROUP BY m.key`,
      [automationId],
    );
    return { steps, emails };
  });
}

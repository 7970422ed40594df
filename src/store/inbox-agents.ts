// The inbox agent's settings (migration 0058): one row per inbox, keyed by the team too.
import type { Queryable } from './db.js';

export interface AgentRow {
  inbox_id: string;
  instructions: string | null;
  tone: string | null;
  actions: string[];
}

export async function agentFind(db: Queryable, teamId: string, inboxId: string): Promise<AgentRow | undefined> {
  const { rows } = await db.query<AgentRow>(
    'SELECT inbox_id, instructions, tone, actions FROM inbox_agents WHERE team_id = $1 AND inbox_id = $2',
    [teamId, inboxId],
  );
  return rows[0];
}

/** Sets the given fields (undefined: kept); creates the row on first use. */
export async function agentUpsert(
  db: Queryable,
  teamId: string,
  inboxId: string,
  f: { instructions?: string | null; tone?: string | null; actions?: string[] },
): Promise<void> {
  await db.query(
    `INSERT INTO inbox_agents (inbox_id, team_id, instructions, tone, actions)
     VALUES ($1, $2, $3, $4, coalesce($5::text[], '{}'))
     ON CONFLICT (inbox_id) DO UPDATE SET
       instructions = CASE WHEN $6 THEN EXCLUDED.instructions ELSE inbox_agents.instructions END,
       tone = CASE WHEN $7 THEN EXCLUDED.tone ELSE inbox_agents.tone END,
       actions = CASE WHEN $8 THEN EXCLUDED.actions ELSE inbox_agents.actions END,
       updated_at = now()`,
    [
      inboxId,
      teamId,
      f.instructions ?? null,
      f.tone ?? null,
      f.actions ?? null,
      f.instructions !== undefined,
      f.tone !== undefined,
      f.actions !== undefined,
    ],
  );
}

/** Whether the inbox's agent has any action allowed (filing queues a run only then). */
export async function agentEnabled(db: Queryable, inboxId: string): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM inbox_agents WHERE inbox_id = $1 AND cardinality(actions) > 0', [
    inboxId,
  ]);
  return rows.length > 0;
}

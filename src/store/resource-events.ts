// Events about a team's resources (domain.*, suppression.*) into the one webhook outbox,
// `email_events`, like contact.* (migration 0009): `email_id` holds the resource's id and
// `recipient` is NULL, so no email timeline or metric ever shows them.
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';

export async function resourceEventInsert(
  db: Queryable,
  teamId: string,
  resourceId: string,
  type: string,
  data: Record<string, unknown>,
): Promise<void> {
  await db.query(
    'INSERT INTO email_events (id, email_id, team_id, type, recipient, data) VALUES ($1, $2, $3, $4, NULL, $5)',
    [uuid(), resourceId, teamId, type, JSON.stringify(data)],
  );
}

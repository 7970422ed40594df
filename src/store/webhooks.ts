// Webhook endpoints: the rows behind /webhooks, team-scoped, and the two reads the workers need
// (one endpoint for delivery; the enabled endpoints of some teams for fan-out).
import { prepared, type Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface WebhookRow {
  id: string;
  team_id: string;
  endpoint: string;
  events: string[];
  status: 'enabled' | 'disabled';
  secret_sealed: string;
  previous_secret_sealed: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  disabled_reason: string | null;
  created_at: string; // Postgres text format
}

const COLUMNS = `id, team_id, endpoint, events, status, secret_sealed, previous_secret_sealed, previous_secret_until,
  failing_since, disabled_reason, created_at::text AS created_at`;

export async function webhookInsert(
  db: Queryable,
  w: { id: string; team_id: string; endpoint: string; events: string[]; secret_sealed: string },
): Promise<void> {
  await db.query('INSERT INTO webhooks (id, team_id, endpoint, events, secret_sealed) VALUES ($1, $2, $3, $4, $5)', [
    w.id,
    w.team_id,
    w.endpoint,
    w.events,
    w.secret_sealed,
  ]);
}

export async function webhookFindById(db: Queryable, teamId: string, id: string): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(`SELECT ${COLUMNS} FROM webhooks WHERE team_id = $1 AND id = $2`, [
    teamId,
    id,
  ]);
  return rows[0];
}

/** For the delivery job, which knows the endpoint id only. */
export async function webhookFindForDelivery(db: Queryable, id: string): Promise<WebhookRow | undefined> {
  const { rows } = await db.query<WebhookRow>(
    prepared(db, 'mr_webhook_find_for_delivery', `SELECT ${COLUMNS} FROM webhooks WHERE id = $1`, [id]),
  );
  return rows[0];
}

export async function webhookList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
): Promise<Page<{ id: string; endpoint: string; created_at: string; status: string; events: string[] }>> {
  return paginate(db, {
    table: 'webhooks',
    columns: 'id, endpoint, created_at::text AS created_at, status, events',
    teamId,
    page,
  });
}

/**
 * Changes endpoint, events and/or status. Enabling clears the failure state; disabling records
 * why and fails the messages still waiting (they can be replayed).
 */
export async function webhookUpdate(
  db: Queryable,
  teamId: string,
  id: string,
  u: { endpoint?: string; events?: string[]; status?: 'enabled' | 'disabled' },
): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH w AS (
       UPDATE webhooks SET endpoint = coalesce($3, endpoint), events = coalesce($4, events), status = coalesce($5, status),
         failing_since = CASE WHEN $5 = 'enabled' THEN NULL ELSE failing_since END,
         disabled_reason = CASE WHEN $5 = 'enabled' THEN NULL WHEN $5 = 'disabled' AND status = 'enabled' THEN 'manual' ELSE disabled_reason END,
         updated_at = now()
       WHERE team_id = $1 AND id = $2 RETURNING id),
     m AS (
       UPDATE webhook_messages SET status = 'failed', next_attempt_at = NULL
       WHERE $5 = 'disabled' AND webhook_id = $2 AND status IN ('pending', 'attempting') AND EXISTS (SELECT 1 FROM w))
     SELECT 1 FROM w`,
    [teamId, id, u.endpoint ?? null, u.events ?? null, u.status ?? null],
  );
  return Boolean(rowCount);
}

export async function webhookDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM webhooks WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

/** The current secret becomes the previous one, still signing until `overlapUntil`. */
export async function webhookRotateSecret(
  db: Queryable,
  teamId: string,
  id: string,
  sealed: string,
  overlapUntil: Date,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE webhooks SET previous_secret_sealed = secret_sealed, previous_secret_until = $4, secret_sealed = $3, updated_at = now()
     WHERE team_id = $1 AND id = $2`,
    [teamId, id, sealed, overlapUntil],
  );
  return Boolean(rowCount);
}

export interface EndpointSubscription {
  id: string;
  team_id: string;
  events: string[];
  created_at: Date;
}

/**
 * Fan-out: the teams' enabled endpoints, locked FOR KEY SHARE for the caller's transaction (a fan-out pass):
 * an endpoint's delete waits for the pass to commit and its trigger then deletes the pass's messages
 * too, or it committed first and the endpoint is not read (what webhook_messages' foreign key did
 * for every message before 0083, once an endpoint here).
 */
export async function webhooksEnabledForTeams(db: Queryable, teamIds: string[]): Promise<EndpointSubscription[]> {
  if (!teamIds.length) return [];
  const { rows } = await db.query<EndpointSubscription>(
    prepared(
      db,
      'mr_webhooks_enabled_for_teams',
      "SELECT id, team_id, events, created_at FROM webhooks WHERE status = 'enabled' AND team_id = ANY($1::uuid[]) FOR KEY SHARE",
      [teamIds],
    ),
  );
  return rows;
}

// Topics and contacts' subscriptions to them. Every query is keyed by the team.
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export type Subscription = 'opt_in' | 'opt_out';
export interface TopicRow {
  id: string;
  name: string;
  description: string | null;
  default_subscription: Subscription;
  visibility: 'public' | 'private';
  created_at: string;
  updated_at: string;
}
const COLUMNS =
  'id, name, description, default_subscription, visibility, created_at::text AS created_at, updated_at::text AS updated_at';

export async function topicInsert(
  db: Queryable,
  teamId: string,
  t: Omit<TopicRow, 'id' | 'created_at' | 'updated_at'>,
): Promise<TopicRow> {
  const { rows } = await db.query<TopicRow>(
    `INSERT INTO topics (id, team_id, name, description, default_subscription, visibility) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
    [uuid(), teamId, t.name, t.description, t.default_subscription, t.visibility],
  );
  return rows[0];
}

export async function topicFind(db: Queryable, teamId: string, id: string): Promise<TopicRow | undefined> {
  const { rows } = await db.query<TopicRow>(`SELECT ${COLUMNS} FROM topics WHERE team_id = $1 AND id = $2`, [
    teamId,
    id,
  ]);
  return rows[0];
}

/** The team's topics among `ids` (to check references in one query). */
export async function topicsFindMany(db: Queryable, teamId: string, ids: string[]): Promise<TopicRow[]> {
  const { rows } = await db.query<TopicRow>(
    `SELECT ${COLUMNS} FROM topics WHERE team_id = $1 AND id = ANY($2::uuid[])`,
    [teamId, ids],
  );
  return rows;
}

export function topicList(db: Queryable, teamId: string, page: PageQuery): Promise<Page<TopicRow>> {
  return paginate<TopicRow>(db, { table: 'topics', columns: COLUMNS, teamId, page });
}

export async function topicUpdate(
  db: Queryable,
  teamId: string,
  id: string,
  p: Partial<Pick<TopicRow, 'name' | 'description' | 'visibility'>>,
): Promise<TopicRow | undefined> {
  const { rows } = await db.query<TopicRow>(
    `UPDATE topics SET name = coalesce($3, name), description = CASE WHEN $4::boolean THEN $5 ELSE description END,
       visibility = coalesce($6, visibility), updated_at = now()
     WHERE team_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [teamId, id, p.name ?? null, p.description !== undefined, p.description ?? null, p.visibility ?? null],
  );
  return rows[0];
}

export async function topicDelete(db: Queryable, teamId: string, id: string): Promise<TopicRow | undefined> {
  const { rows } = await db.query<TopicRow>(`DELETE FROM topics WHERE team_id = $1 AND id = $2 RETURNING ${COLUMNS}`, [
    teamId,
    id,
  ]);
  return rows[0];
}

/**
 * Every topic of the team with the contact's subscription to it: its own choice, else the topic's
 * default (`chosen` tells which).
 */
export async function contactTopicsList(
  db: Queryable,
  teamId: string,
  contactId: string,
): Promise<(TopicRow & { subscription: Subscription; chosen: boolean })[]> {
  const { rows } = await db.query<TopicRow & { subscription: Subscription; chosen: boolean }>(
    `SELECT t.id, t.name, t.description, t.default_subscription, t.visibility, t.created_at::text AS created_at, t.updated_at::text AS updated_at,
            coalesce(ct.subscription, t.default_subscription) AS subscription, ct.subscription IS NOT NULL AS chosen
     FROM topics t LEFT JOIN contact_topics ct ON ct.topic_id = t.id AND ct.contact_id = $2
     WHERE t.team_id = $1 ORDER BY t.created_at, t.id`,
    [teamId, contactId],
  );
  return rows;
}

/** Records the contact's choices (topics must be the team's: checked by the caller). */
export async function contactTopicsSet(
  db: Queryable,
  contactId: string,
  choices: { id: string; subscription: Subscription }[],
): Promise<void> {
  if (!choices.length) return;
  await db.query(
    `INSERT INTO contact_topics (contact_id, topic_id, subscription)
     SELECT $1, t.id, t.subscription FROM json_to_recordset($2::json) AS t (id uuid, subscription text)
     ON CONFLICT (contact_id, topic_id) DO UPDATE SET subscription = EXCLUDED.subscription, updated_at = now()`,
    [contactId, JSON.stringify(choices)],
  );
}

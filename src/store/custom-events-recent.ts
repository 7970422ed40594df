// Reading recorded custom events across a team (the dashboard's Events page): newest first, by
// name and/or by contact, and the names seen lately. Every query keyed by the team; the writes and
// a contact's history stay in custom-events.ts.
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';
import type { CustomEventRow } from './custom-events.js';

const EVENT_COLUMNS = 'id, name, contact_id, email, payload, created_at::text AS created_at';
/** How many of the newest events the names summary looks at (bounded work on a large table). */
export const RECENT_NAMES_WINDOW = 10_000;

export interface RecentEventsFilter {
  name?: string;
  contact?: { id: string; email: string };
  email?: string;
}

/** The team's events, newest first: all, of one name, of one contact (its address's too), or of an address. */
export function customEventListRecent(
  db: Queryable,
  teamId: string,
  f: RecentEventsFilter,
  page: PageQuery,
): Promise<Page<CustomEventRow>> {
  const conds: string[] = [];
  const params: unknown[] = [];
  if (f.name !== undefined) {
    params.push(f.name);
    conds.push(`name = $${params.length}`);
  }
  if (f.contact) {
    params.push(f.contact.id, f.contact.email);
    conds.push(`(contact_id = $${params.length - 1} OR (contact_id IS NULL AND email = $${params.length}))`);
  } else if (f.email !== undefined) {
    params.push(f.email);
    conds.push(`email = $${params.length}`);
  }
  return paginate<CustomEventRow>(db, {
    table: 'custom_events',
    columns: EVENT_COLUMNS,
    teamId,
    page,
    ...(conds.length ? { where: conds.join(' AND '), params } : {}),
  });
}

export interface RecentEventName {
  name: string;
  count: number;
  last_seen_at: string;
}

/** The names among the team's newest RECENT_NAMES_WINDOW events, most recently seen first, with their counts there. */
export async function customEventNamesRecent(db: Queryable, teamId: string, limit = 200): Promise<RecentEventName[]> {
  const { rows } = await db.query<RecentEventName>(
    `SELECT name, count(*)::int AS count, max(created_at)::text AS last_seen_at
     FROM (SELECT name, created_at FROM custom_events WHERE team_id = $1 ORDER BY created_at DESC LIMIT $2) recent
     GROUP BY name ORDER BY max(created_at) DESC LIMIT $3`,
    [teamId, RECENT_NAMES_WINDOW, limit],
  );
  return rows;
}

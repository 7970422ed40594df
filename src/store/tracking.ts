// Writes for open and click tracking, in batches from tracking/recorder.ts: the emails the hits
// belong to (to build event data), and the events themselves with last_event following them.
import type { EventInsert } from './emails.js';
import type { Queryable } from './db.js';

export interface TrackedEmail {
  id: string;
  team_id: string;
  created_at: Date;
  from_header: string;
  to_addrs: string[];
  subject: string;
  message_id: string;
  tags: { name: string; value: string }[];
  headers: { name: string; value: string }[] | null;
  broadcast_id: string | null;
  automation_id: string | null;
}

export async function emailsFindForTracking(db: Queryable, ids: string[]): Promise<TrackedEmail[]> {
  if (!ids.length) return [];
  const { rows } = await db.query<TrackedEmail>(
    'SELECT id, team_id, created_at, from_header, to_addrs, subject, message_id, tags, headers, broadcast_id, automation_id FROM emails WHERE id = ANY($1::uuid[])',
    [ids],
  );
  return rows;
}

/**
 * Inserts open and click events in one statement. Only the first open of an email is kept (the
 * unique index on email.opened); each email's last_event becomes its latest event inserted here,
 * unless the email was canceled. Returns how many events were inserted.
 */
export async function emailEventsInsertTracked(db: Queryable, events: EventInsert[]): Promise<number> {
  if (!events.length) return 0;
  const { rows } = await db.query<{ n: number }>(
    `WITH ins AS (
       INSERT INTO email_events (id, email_id, team_id, type, recipient, data, detail, created_at)
       SELECT id, email_id, team_id, type, recipient, data, detail, created_at FROM json_populate_recordset(NULL::email_events, $1::json)
       ON CONFLICT (email_id) WHERE type = 'email.opened' DO NOTHING
       RETURNING email_id, type, created_at),
     latest AS (SELECT DISTINCT ON (email_id) email_id, type FROM ins ORDER BY email_id, created_at DESC),
     u AS (UPDATE emails e SET last_event = substr(latest.type, 7) FROM latest WHERE e.id = latest.email_id AND e.last_event <> 'canceled')
     SELECT count(*)::int AS n FROM ins`,
    [JSON.stringify(events)],
  );
  return rows[0].n;
}

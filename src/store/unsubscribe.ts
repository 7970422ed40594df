// What the unsubscribe endpoints read: the email a token names (with its team's name, for the
// preference page), and the topics that page lists with a contact's subscription to each.
import type { Queryable } from './db.js';
import type { Subscription } from './topics.js';

export interface EmailForUnsubscribe {
  id: string;
  team_id: string;
  team_name: string;
  topic_id: string | null;
  list_unsubscribe: boolean;
  to_addrs: string[];
  cc_addrs: string[];
  bcc_addrs: string[];
  // for the email.unsubscribed event on the email's timeline
  created_at: Date;
  from_header: string;
  subject: string;
  message_id: string;
  tags: { name: string; value: string }[];
  headers: { name: string; value: string }[] | null;
  broadcast_id: string | null;
  automation_id: string | null;
}

export async function emailFindForUnsubscribe(db: Queryable, id: string): Promise<EmailForUnsubscribe | undefined> {
  const { rows } = await db.query<EmailForUnsubscribe>(
    `SELECT e.id, e.team_id, t.name AS team_name, e.topic_id, e.list_unsubscribe, e.to_addrs, e.cc_addrs, e.bcc_addrs,
            e.created_at, e.from_header, e.subject, e.message_id, e.tags, e.headers, e.broadcast_id, e.automation_id
     FROM emails e JOIN teams t ON t.id = e.team_id WHERE e.id = $1`,
    [id],
  );
  return rows[0];
}

export interface PreferenceTopic {
  id: string;
  name: string;
  description: string | null;
  subscription: Subscription;
}

/**
 * The topics a preference page shows: the team's public topics, and `topicId` (the email's own
 * topic) even when private, each with the contact's subscription (its choice, else the default).
 */
export async function topicListForPreferences(
  db: Queryable,
  teamId: string,
  contactId: string | null,
  topicId: string | null,
): Promise<PreferenceTopic[]> {
  const { rows } = await db.query<PreferenceTopic>(
    `SELECT t.id, t.name, t.description, coalesce(ct.subscription, t.default_subscription) AS subscription
     FROM topics t LEFT JOIN contact_topics ct ON ct.topic_id = t.id AND ct.contact_id = $2
     WHERE t.team_id = $1 AND (t.visibility = 'public' OR t.id = $3)
     ORDER BY t.created_at, t.id`,
    [teamId, contactId, topicId],
  );
  return rows;
}

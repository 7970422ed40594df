// Who of a page of a segment's contacts may receive a broadcast: the suppressed addresses and the
// contacts outside the topic's subscription rule, for the whole page in one query.
import type { Queryable } from './db.js';

export interface PageExclusions {
  /** addresses on the team's suppression list */
  suppressed: Set<string>;
  /** contacts whose subscription to the topic (their own, else the topic's default) is opt_out */
  topicOut: Set<string>;
}

export async function broadcastPageExclusions(
  db: Queryable,
  teamId: string,
  topicId: string | null,
  contacts: { id: string; email: string }[],
): Promise<PageExclusions> {
  if (!contacts.length) return { suppressed: new Set(), topicOut: new Set() };
  const { rows } = await db.query<{ kind: 'suppressed' | 'topic'; v: string }>(
    `SELECT 'suppressed' AS kind, s.email AS v FROM suppressions s WHERE s.team_id = $1 AND s.email = ANY($2::text[])
     UNION ALL
     SELECT 'topic', c.id::text FROM unnest($3::uuid[]) AS c (id) JOIN topics t ON t.id = $4::uuid AND t.team_id = $1
       LEFT JOIN contact_topics ct ON ct.contact_id = c.id AND ct.topic_id = t.id
     WHERE coalesce(ct.subscription, t.default_subscription) = 'opt_out'`,
    [teamId, contacts.map((c) => c.email.toLowerCase()), contacts.map((c) => c.id), topicId],
  );
  const out: PageExclusions = { suppressed: new Set(), topicOut: new Set() };
  for (const r of rows) (r.kind === 'suppressed' ? out.suppressed : out.topicOut).add(r.v);
  return out;
}

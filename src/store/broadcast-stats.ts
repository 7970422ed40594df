// What a broadcast's emails did, counted in SQL from emails and email_events (through the
// broadcast-only indexes of 0019): live progress, the recipients by event type, and the clicked
// links. The automatic pause reads running counters instead (broadcast_rate_counts, kept by the
// email_events trigger of 0034).
import { AppError } from '../errors.js';
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface BroadcastCounts {
  emails: number;
  queued: number;
  delivered: number;
  bounced: number;
  hard_bounced: number;
  complained: number;
  opened: number;
  clicked: number;
  unsubscribed: number;
  suppressed: number;
  failed: number;
  canceled: number;
}

/** Emails of the broadcast having at least one event of each type (distinct emails, not events). */
export async function broadcastCounts(db: Queryable, id: string): Promise<BroadcastCounts> {
  const { rows } = await db.query<BroadcastCounts>(
    `WITH e AS (SELECT id, last_event FROM emails WHERE broadcast_id = $1),
     ev AS (SELECT DISTINCT ev.email_id, ev.type, (ev.type = 'email.bounced' AND ev.data->'bounce'->>'type' = 'Permanent') AS hard
            FROM email_events ev JOIN e ON e.id = ev.email_id
            WHERE ev.type IN ('email.delivered', 'email.bounced', 'email.complained', 'email.opened', 'email.clicked', 'email.unsubscribed', 'email.suppressed', 'email.failed'))
     SELECT (SELECT count(*) FROM e)::int AS emails,
       (SELECT count(*) FROM e WHERE last_event = 'sent')::int AS queued,
       (SELECT count(*) FROM e WHERE last_event = 'canceled')::int AS canceled,
       count(DISTINCT email_id) FILTER (WHERE type = 'email.delivered')::int AS delivered,
       count(DISTINCT email_id) FILTER (WHERE type = 'email.bounced')::int AS bounced,
       count(DISTINCT email_id) FILTER (WHERE hard)::int AS hard_bounced,
       count(DISTINCT email_id) FILTER (WHERE type = 'email.complained')::int AS complained,
       count(DISTINCT email_id) FILTER (WHERE type = 'email.opened')::int AS opened,
       count(DISTINCT email_id) FILTER (WHERE type = 'email.clicked')::int AS clicked,
       count(DISTINCT email_id) FILTER (WHERE type = 'email.unsubscribed')::int AS unsubscribed,
       count(DISTINCT email_id) FILTER (WHERE type = 'email.suppressed')::int AS suppressed,
       count(DISTINCT email_id) FILTER (WHERE type = 'email.failed')::int AS failed
     FROM ev`,
    [id],
  );
  return rows[0];
}

/** The broadcast's delivery results as counted by the email_events trigger (0034), with its slots not folded yet (0067): what the automatic pause reads. */
export async function broadcastRateCounts(
  db: Queryable,
  id: string,
): Promise<{ delivered: number; bounced: number; hard_bounced: number; complained: number }> {
  const { rows } = await db.query(
    `SELECT coalesce(sum(delivered), 0)::int AS delivered, coalesce(sum(bounced), 0)::int AS bounced,
       coalesce(sum(hard_bounced), 0)::int AS hard_bounced, coalesce(sum(complained), 0)::int AS complained
     FROM (SELECT delivered, bounced, hard_bounced, complained FROM broadcast_rate_counts WHERE broadcast_id = $1
       UNION ALL SELECT delivered, bounced, hard_bounced, complained FROM broadcast_rate_count_slots WHERE broadcast_id = $1) c`,
    [id],
  );
  return rows[0] ?? { delivered: 0, bounced: 0, hard_bounced: 0, complained: 0 };
}

export const RECIPIENT_TYPES = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
  'suppressed',
] as const;
export type RecipientType = (typeof RECIPIENT_TYPES)[number];
export const BOUNCE_TYPES = ['permanent', 'transient', 'undetermined'] as const;

export interface RecipientItem {
  id: string;
  contact_id: string | null;
  email: string;
  count?: number;
  clicked_links?: { url: string; clicks: number }[];
  bounce_type?: string;
}

/**
 * The broadcast's recipients whose email had an event of `type` (sent: every email), newest first,
 * paged by email id (the opaque cursor of resend-compat 7.5).
 */
export async function broadcastRecipientsPage(
  db: Queryable,
  teamId: string,
  broadcastId: string,
  q: { type: RecipientType; email?: string; bounceType?: string },
  page: PageQuery,
): Promise<Page<RecipientItem>> {
  const params: unknown[] = [broadcastId];
  const conds = ['broadcast_id = $1::uuid'];
  if (q.type !== 'sent') {
    params.push(`email.${q.type}`);
    let cond = `ev.type = $${params.length}`;
    if (q.bounceType) {
      params.push(q.bounceType);
      cond += ` AND lower(ev.data->'bounce'->>'type') = $${params.length}`;
    }
    conds.push(`EXISTS (SELECT 1 FROM email_events ev WHERE ev.email_id = emails.id AND ${cond})`);
  }
  if (q.email) {
    params.push(q.email);
    conds.push(`lower(to_addrs[1]) = lower($${params.length})`);
  }
  const extra =
    q.type === 'opened'
      ? `, (SELECT count(*)::int FROM email_events ev WHERE ev.email_id = emails.id AND ev.type = 'email.opened') AS count`
      : q.type === 'clicked'
        ? `, (SELECT count(*)::int FROM email_events ev WHERE ev.email_id = emails.id AND ev.type = 'email.clicked') AS count,
         (SELECT coalesce(json_agg(json_build_object('url', l.url, 'clicks', l.n) ORDER BY l.url), '[]') FROM (
            SELECT ev.data->'click'->>'link' AS url, count(*)::int AS n FROM email_events ev
            WHERE ev.email_id = emails.id AND ev.type = 'email.clicked' GROUP BY 1) l) AS clicked_links`
        : q.type === 'bounced'
          ? `, (SELECT coalesce(lower(ev.data->'bounce'->>'type'), 'undetermined') FROM email_events ev
              WHERE ev.email_id = emails.id AND ev.type = 'email.bounced' ORDER BY ev.created_at DESC LIMIT 1) AS bounce_type`
          : '';
  return paginate<RecipientItem>(db, {
    table: 'emails',
    teamId,
    page,
    where: conds.join(' AND '),
    params,
    columns: `id, (SELECT c.id FROM contacts c WHERE c.team_id = emails.team_id AND c.email = lower(emails.to_addrs[1])) AS contact_id,
      to_addrs[1] AS email${extra}`,
  });
}

export interface ClickedLink {
  id: string;
  url: string;
  clicks: number;
  unique_clicks: number;
}

const linkCursor = (url: string) => Buffer.from(url, 'utf8').toString('base64url');

/** The links clicked in the broadcast's emails, by URL; the cursor is an opaque encoding of the URL. */
export async function broadcastClickedLinks(
  db: Queryable,
  broadcastId: string,
  page: PageQuery,
): Promise<Page<ClickedLink>> {
  const limit = page.limit ?? 20;
  const cursor = page.after ?? page.before;
  let url: string | null = null;
  if (cursor !== undefined) {
    url = Buffer.from(cursor, 'base64url').toString('utf8');
    if (!url || linkCursor(url) !== cursor)
      throw new AppError(
        'validation_error',
        `The \`${page.after ? 'after' : 'before'}\` cursor does not match any item.`,
      );
  }
  const before = page.before !== undefined;
  const { rows } = await db.query<{ url: string; clicks: number; unique_clicks: number }>(
    `SELECT ev.data->'click'->>'link' AS url, count(*)::int AS clicks, count(DISTINCT ev.email_id)::int AS unique_clicks
     FROM emails e JOIN email_events ev ON ev.email_id = e.id
     WHERE e.broadcast_id = $1 AND ev.type = 'email.clicked'
       AND ($2::text IS NULL OR (CASE WHEN $3::boolean THEN ev.data->'click'->>'link' < $2 ELSE ev.data->'click'->>'link' > $2 END))
     GROUP BY 1 ORDER BY 1 ${before ? 'DESC' : 'ASC'} LIMIT $4`,
    [broadcastId, url, before, limit + 1],
  );
  const hasMore = rows.length > limit;
  const data = rows.slice(0, limit);
  if (before) data.reverse();
  return { has_more: hasMore, data: data.map((r) => ({ id: linkCursor(r.url), ...r })) };
}

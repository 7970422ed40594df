// Optional filters of the email list (dashboard): status, date range, domain, API key, tag, and a
// search by recipient address or subject words. Each maps to an index from 0007_dashboard.sql;
// a search by part of an address to the trigram index of 0029 (when pg_trgm is installed, else the
// team's rows are read newest first, stopping at the page size). Without filters the list query is
// exactly the unfiltered one.

export interface EmailFilters {
  status?: string; // last_event, but opened/clicked: ever opened/clicked
  startDate?: Date; // created_at >= start
  endDate?: Date; // created_at < end
  domainId?: string;
  apiKeyId?: string;
  tag?: { name: string; value?: string };
  recipient?: string; // exact address, any case
  subjectWords?: string[]; // every word must start a word of the subject
  recipientPart?: string; // part of a recipient address ("noah", "gmail.com"), any case; with subjectWords: either matches
  broadcastId?: string; // the emails of one broadcast (emails_broadcast_created, 0019)
}

const EVER: Record<string, string> = { opened: 'email.opened', clicked: 'email.clicked' };

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

// No index of emails holds last_event (0082: the delivery's update of it is HOT), so a status is
// found another way. An email is in one of these statuses only after an event of its type: the
// team's events of that type (email_events_team_type_created) find the few that are, and where
// most emails are (delivered), the list in its own order finds them in its first rows; the
// planner picks by the counts it keeps of both. Like opened and clicked, a status is then known as
// far back as the team keeps events (privacy-retention.ts). `scheduled` is found by scheduled_at
// (emails_team_scheduled). `sent` and `queued` (no result yet) have no such record: they are
// looked for among the team's newest RECENT_UNRESULTED emails (an email leaves them at its first
// delivery result, so they are the newest but for a stopped worker's backlog), so that neither a
// page nor a count reads a team's whole history.
const STATUS_EVENT = new Set([
  'delivered',
  'delivery_delayed',
  'bounced',
  'complained',
  'failed',
  'canceled',
  'suppressed',
]);
export const RECENT_UNRESULTED = 100_000;
/** A status with no record but last_event: looked for among the team's newest emails only. */
export const isUnresulted = (status: string | undefined) =>
  status !== undefined && !STATUS_EVENT.has(status) && status !== 'scheduled' && !(status in EVER);

function statusSql(status: string, teamId: string, recentOnly: boolean, p: (v: unknown) => string): string {
  const is = `last_event = ${p(status)}`;
  if (status === 'scheduled') return `${is} AND scheduled_at IS NOT NULL`;
  if (recentOnly) return is; // the caller reads only the team's newest RECENT_UNRESULTED emails
  if (!isUnresulted(status))
    return `${is} AND EXISTS (SELECT 1 FROM email_events ev WHERE ev.team_id = emails.team_id AND ev.type = ${p(`email.${status}`)} AND ev.email_id = emails.id)`;
  return `${is} AND created_at >= coalesce((SELECT r.created_at FROM emails r WHERE r.team_id = ${p(teamId)}::uuid
    ORDER BY r.created_at DESC, r.id DESC OFFSET ${RECENT_UNRESULTED - 1} LIMIT 1), '-infinity')`;
}

/**
 * A WHERE fragment with $1.. placeholders (paginate.ts shifts them after team_id), or undefined.
 * `recentOnly`: the query reads only the team's newest RECENT_UNRESULTED emails (emailCount for
 * sent and queued), so their status needs no bound of its own.
 */
export function emailFilterSql(
  f: EmailFilters,
  teamId: string,
  recentOnly = false,
): { where: string; params: unknown[] } | undefined {
  const conds: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  // Opened and clicked mean "was opened / clicked" (such an event exists: an opened email whose
  // last event is a click is still opened), as Metrics counts them; the other statuses are where
  // the email is now. The first open is one row per email (email_events_first_open, 0005).
  const ever = f.status ? EVER[f.status] : undefined;
  if (ever) conds.push(`EXISTS (SELECT 1 FROM email_events ev WHERE ev.email_id = emails.id AND ev.type = ${p(ever)})`);
  else if (f.status) conds.push(statusSql(f.status, teamId, recentOnly && isUnresulted(f.status), p));
  if (f.startDate) conds.push(`created_at >= ${p(f.startDate)}`);
  if (f.endDate) conds.push(`created_at < ${p(f.endDate)}`);
  if (f.domainId) conds.push(`domain_id = ${p(f.domainId)}::uuid`);
  if (f.broadcastId) conds.push(`broadcast_id = ${p(f.broadcastId)}::uuid`);
  if (f.apiKeyId) conds.push(`api_key_id = ${p(f.apiKeyId)}::uuid`);
  if (f.tag)
    conds.push(`tags @> ${p(JSON.stringify([f.tag.value === undefined ? { name: f.tag.name } : f.tag]))}::jsonb`);
  if (f.recipient) conds.push(`mailroom_lower_addrs(to_addrs) @> ARRAY[lower(${p(f.recipient)})]`);
  const either: string[] = [];
  if (f.subjectWords?.length) {
    either.push(
      `to_tsvector('simple'::regconfig, subject) @@ to_tsquery('simple'::regconfig, ${p(f.subjectWords.map((w) => `${w}:*`).join(' & '))})`,
    );
  }
  // The trigram index emails_addrs_trgm (0029) answers this expression; a part has no spaces, so it never spans two addresses.
  if (f.recipientPart)
    either.push(`mailroom_addrs_text(to_addrs) LIKE ${p(`%${likeEscape(f.recipientPart.toLowerCase())}%`)}`);
  if (either.length) conds.push(either.length > 1 ? `(${either.join(' OR ')})` : either[0]);
  return conds.length ? { where: conds.join(' AND '), params } : undefined;
}

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

/** A WHERE fragment with $1.. placeholders (paginate.ts shifts them after team_id), or undefined. */
export function emailFilterSql(f: EmailFilters): { where: string; params: unknown[] } | undefined {
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
  else if (f.status) conds.push(`last_event = ${p(f.status)}`);
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

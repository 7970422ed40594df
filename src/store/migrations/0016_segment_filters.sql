-- Rule-based segments: a segment carries either members (contact_segments) or a filter, the normal
-- form of contacts/filter.ts as JSON, evaluated in SQL on every read (store/segment-filter.ts).
ALTER TABLE segments ADD COLUMN filter jsonb;

-- Engagement rules ("opened in the last 30 days", "never clicked") probe a contact's events by
-- address. Partial: only the five engagement types, so the send path's email.sent, delivery
-- attempts and contact.* rows pay nothing for it. Measured cost in BENCHMARKS.md.
CREATE INDEX email_events_engagement ON email_events (team_id, lower(recipient), type, created_at)
  WHERE type IN ('email.delivered', 'email.opened', 'email.clicked', 'email.bounced', 'email.complained');

-- Issue 27: the delivery result's update of an email (last_event, delayed_once, insights) and a
-- tracked open or click (last_event) become HOT updates: no index of emails refers to last_event
-- any more, and pages keep room for the new row version (fillfactor 70; new pages only, old ones
-- as they are rewritten). Before, each of those updates wrote a new entry into every index of the
-- table (eleven, two of them GIN recomputing tags, addresses and subject words) for a row whose
-- indexed values had not changed. Measured with bench/pg-results-ab.ts (results of 2 emails a
-- statement): 285.8 -> 239.2 and 283.3 -> 235.8 µs of PostgreSQL CPU per delivered email.
--
-- What read the two indexes dropped here is served another way:
-- - the email list's status filter (emails_team_status_created): a status that has its event is
--   found through the team's events of that type (email_events_team_type_created) when those are
--   few, else by the team's list in its order (store/email-filters.ts); `scheduled` through
--   emails_team_scheduled below (scheduled_at is set at acceptance and only changed by a
--   reschedule);
-- - a broadcast's copies waiting for delivery (emails_broadcast_queued: pacing, cancel, pause):
--   the copies not yet handed over to a delivery (handed_over_at, set once per copy by the
--   delivery's load, 0035), emails_broadcast_unclaimed below.
ALTER TABLE emails SET (fillfactor = 70);
DROP INDEX IF EXISTS emails_team_status_created;
DROP INDEX IF EXISTS emails_broadcast_queued;
CREATE INDEX emails_broadcast_unclaimed ON emails (broadcast_id) WHERE broadcast_id IS NOT NULL AND handed_over_at IS NULL;
CREATE INDEX emails_team_scheduled ON emails (team_id, created_at DESC, id DESC) WHERE scheduled_at IS NOT NULL;

-- Issue 27: the accept statement checked three foreign keys for every email it inserted
-- (emails.team_id and email_events.team_id against teams, emails.domain_id against domains): one
-- index lookup and one row lock (FOR KEY SHARE) each, run row by row by PostgreSQL's RI triggers.
-- Measured on the accept statement alone (bench/pg-accept-ab.ts: 100 emails a statement, the same
-- rows written to two databases round by round, the backends' CPU from /proc): 43.3 µs of
-- PostgreSQL CPU per email without the keys against 51.3 with them (-16%; 60.8 -> 51.5 and
-- 85.3 -> 72.8 in earlier runs with statements planned at each call), where two identical
-- databases measured 40.0 and 40.7. Broadcast pages and delivery results (email_events) paid the
-- same checks per row.
--
-- What the keys did is kept where it is still needed:
-- * the references are right when written: every writer takes the team from the request's API
--   key (or the broadcast, automation, system mail or received message it belongs to, or the
--   emails row it records an event for) and the domain from the sending domain it just looked up;
-- * ON DELETE CASCADE from teams (the service deletes no team; an operator may) and ON DELETE SET
--   NULL from domains (DELETE /domains/:id) are the triggers below, in the same transaction as the
--   delete, as the keys' own triggers were. An email accepted while its domain is being deleted
--   can keep the deleted domain's id (the key would have made one of the two wait): delivery and
--   every reader treat an id with no domain row as no domain (domainFor finds nothing ->
--   domain_not_verified, as for NULL).
ALTER TABLE emails DROP CONSTRAINT emails_team_id_fkey;
ALTER TABLE emails DROP CONSTRAINT emails_domain_id_fkey;
ALTER TABLE email_events DROP CONSTRAINT email_events_team_id_fkey;

CREATE FUNCTION mailroom_team_deleted_emails() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM email_events WHERE team_id = OLD.id; -- email_events_team_created
  DELETE FROM emails WHERE team_id = OLD.id;       -- emails_team_created; tables keyed to emails cascade from it
  RETURN NULL;
END $$;
CREATE TRIGGER teams_delete_emails AFTER DELETE ON teams
  FOR EACH ROW EXECUTE FUNCTION mailroom_team_deleted_emails();

-- Any team's emails: system mail is held by the hidden system team but sent from another team's
-- domain (domains/service.ts sendingDomainById). As the key did, a scan of emails.
CREATE FUNCTION mailroom_domain_deleted_emails() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE emails SET domain_id = NULL WHERE domain_id = OLD.id;
  RETURN NULL;
END $$;
CREATE TRIGGER domains_delete_emails AFTER DELETE ON domains
  FOR EACH ROW EXECUTE FUNCTION mailroom_domain_deleted_emails();

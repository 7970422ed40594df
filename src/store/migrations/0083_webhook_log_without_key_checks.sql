-- Issue 27: the webhook log's two foreign keys were checked for every row written, row by row by
-- PostgreSQL's RI triggers (an index lookup and a FOR KEY SHARE lock each): a fan-out pass's
-- messages against webhooks (11 µs of backend CPU a message, of the insert's 40, EXPLAIN ANALYZE of
-- 2,000 messages a statement) and each recorded attempt against its message (15-17 µs of ~100).
-- As for emails in 0077, what the keys did is kept where it is still needed:
-- * a fan-out pass locks the endpoints it reads (FOR KEY SHARE, once an endpoint instead of once a
--   message: store/webhooks.ts webhooksEnabledForTeams), so an endpoint being deleted waits for the
--   pass or is not fanned out to; the record statement writes attempts only of the messages its
--   update found (store/webhook-messages.ts), which locks them against a delete as the key did;
-- * ON DELETE CASCADE (an endpoint's messages, a message's attempts) are the triggers below, in the
--   delete's transaction, as the keys' own triggers were (row by row, by the same indexes).
ALTER TABLE webhook_messages DROP CONSTRAINT webhook_messages_webhook_id_fkey;
ALTER TABLE webhook_attempts DROP CONSTRAINT webhook_attempts_message_id_fkey;

CREATE FUNCTION mailroom_webhook_deleted_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_messages WHERE webhook_id = OLD.id; -- webhook_messages_list
  RETURN NULL;
END $$;
CREATE TRIGGER webhooks_delete_messages AFTER DELETE ON webhooks
  FOR EACH ROW EXECUTE FUNCTION mailroom_webhook_deleted_messages();

CREATE FUNCTION mailroom_webhook_message_deleted_attempts() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM webhook_attempts WHERE message_id = OLD.id; -- webhook_attempts_message
  RETURN NULL;
END $$;
CREATE TRIGGER webhook_messages_delete_attempts AFTER DELETE ON webhook_messages
  FOR EACH ROW EXECUTE FUNCTION mailroom_webhook_message_deleted_attempts();

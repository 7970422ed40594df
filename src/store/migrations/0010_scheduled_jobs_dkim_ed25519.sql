-- Delivery jobs are looked up by email only to cancel or reschedule a scheduled email
-- (store/emails.ts), so only those jobs, marked `"scheduled": true` in their payload, are indexed
-- by email. Before, every accepted email added an entry here: one of the three index updates of
-- its job row, each on the accept path's one statement.
UPDATE jobs SET payload = payload || '{"scheduled": true}'::jsonb
WHERE kind = 'email.deliver' AND payload->>'email_id' IN (SELECT id::text FROM emails WHERE last_event = 'scheduled');
DROP INDEX jobs_email_deliver;
CREATE INDEX jobs_email_scheduled ON jobs ((payload->>'email_id')) WHERE kind = 'email.deliver' AND payload ? 'scheduled';

-- DKIM Ed25519 (RFC 8463), a Mailroom extension turned on per domain: a second key on its own
-- selector (records.ts), sealed at rest like the RSA key, signing beside RSA once its record
-- verifies. Null: not enabled.
ALTER TABLE domains
  ADD COLUMN dkim_ed25519_public_key  text,   -- base64 of the raw 32-byte key, as published (p=)
  ADD COLUMN dkim_ed25519_private_key text;   -- PKCS#8 PEM, sealed with MAILROOM_SECRET_KEY

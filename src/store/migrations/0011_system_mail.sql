-- System mail (password resets, sign-up verification, invites, alerts) is owned by a hidden team
-- that no user, key or dashboard session belongs to: a tenant cannot read its links through
-- GET /emails, raw MIME, webhooks or metrics. Its emails still go through the one send path.
ALTER TABLE teams ADD COLUMN is_system boolean NOT NULL DEFAULT false;
INSERT INTO teams (id, name, is_system) VALUES ('00000000-0000-4000-8000-00000000f00d', 'Mailroom system mail', true)
  ON CONFLICT (id) DO NOTHING;

-- Reset links: one use and short-lived (the TTL is set by the code); a new link retires the older ones.
-- Sign-up proof: a password account is usable only once its address is verified (by a link sent to
-- it, or a provider's verified email). Accounts that existed before are taken as verified.
ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
UPDATE users SET email_verified_at = created_at;

-- A link sent to an address proves it: one use, expiring; an invite sign-up joins its team only then.
CREATE TABLE email_verifications (
  token_hash  text PRIMARY KEY,
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  invite_id   uuid REFERENCES team_invites (id) ON DELETE SET NULL,
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz
);
CREATE INDEX email_verifications_user ON email_verifications (user_id);

-- Domain claims (POST /domains/claim, the SDK's resend.domains.claims.*): a team proves with a TXT
-- record that it controls a domain another team of the installation holds; once verified the
-- domain moves to it with fresh DKIM keys. `domain_id` is the id the domain takes in the claiming
-- team (Resend's "placeholder domain"): a team's later claims for the same name keep it, so
-- GET /domains/:id/claim finds the latest. Open statuses: pending, failed, verified, blocked;
-- final: completed, expired, superseded, canceled.
CREATE TABLE domain_claims (
  id              uuid PRIMARY KEY,
  team_id         uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  domain_id       uuid NOT NULL,
  name            text NOT NULL,
  settings        jsonb NOT NULL,            -- the new domain's settings (region, return path, tracking)
  token           text NOT NULL,             -- the TXT record's value
  status          text NOT NULL DEFAULT 'pending',
  blocked_reason  text,
  failure_reason  text,
  from_team_id    uuid,                      -- the holder the domain was taken from, once completed
  verified_at     timestamptz,
  completed_at    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX domain_claims_team_domain ON domain_claims (team_id, domain_id, created_at DESC);
CREATE INDEX domain_claims_open_name ON domain_claims (lower(name)) WHERE status IN ('pending', 'failed', 'verified', 'blocked');

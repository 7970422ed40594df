-- Mailroom as an OAuth 2.0 authorization server (issue 28): clients the operator registers, the
-- grants a team's owner or admin gives them, one-time authorization codes and the tokens of a
-- grant. Codes and tokens are stored as SHA-256 hashes; the values are never stored.

CREATE TABLE oauth_clients (
  id             uuid PRIMARY KEY,             -- the public client_id
  name           text NOT NULL,
  logo_uri       text,
  redirect_uris  text[] NOT NULL,              -- matched exactly (RFC 6749 3.1.2, OAuth 2.1)
  secret_hash    text,                         -- sha256 hex; NULL: a public client (PKCE alone)
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE oauth_grants (
  id              uuid PRIMARY KEY,
  team_id         uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  client_id       uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  user_id         uuid REFERENCES users (id) ON DELETE SET NULL,  -- who approved
  scopes          text[] NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  revoked_at      timestamptz,
  revoked_reason  text
);
CREATE INDEX oauth_grants_team_created ON oauth_grants (team_id, created_at DESC, id DESC);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);

-- An approved authorization request, until its code is exchanged (once) or expires. grant_id is
-- set by the exchange, so that a second use of the code revokes what the first one obtained.
CREATE TABLE oauth_codes (
  code_hash       text PRIMARY KEY,
  client_id       uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
  team_id         uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  user_id         uuid REFERENCES users (id) ON DELETE CASCADE,
  scopes          text[] NOT NULL,
  redirect_uri    text NOT NULL,
  code_challenge  text NOT NULL,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz,
  grant_id        uuid REFERENCES oauth_grants (id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_codes_expires ON oauth_codes (expires_at);

-- Access and refresh tokens. A refresh token is used once (used_at set when it is rotated); a
-- rotated one presented again revokes its grant. Every check joins the grant, so revoking the
-- grant stops all of its tokens in every process at once.
CREATE TABLE oauth_tokens (
  token_hash  text PRIMARY KEY,
  grant_id    uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
  kind        text NOT NULL CHECK (kind IN ('access', 'refresh')),
  expires_at  timestamptz NOT NULL,
  used_at     timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);

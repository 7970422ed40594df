-- API keys with an optional expiry and allowed source networks (issue 29, Mailroom extensions).
-- Both live in the key's own row, read by the same lookup that authenticates the key (cached a few
-- seconds per process): NULL = no expiry / any network. Networks are normalised CIDR text.
ALTER TABLE api_keys
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN allowed_networks text[] CHECK (cardinality(allowed_networks) BETWEEN 1 AND 50);

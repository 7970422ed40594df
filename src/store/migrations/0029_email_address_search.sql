-- Search by part of a recipient address ("noah", "gmail.com") in the dashboard's email list.
-- The addresses as one lowercased text: a substring without spaces matches within one address.
CREATE FUNCTION mailroom_addrs_text(text[]) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS 'SELECT lower(array_to_string($1, '' ''))';

-- A trigram index answers a rare substring without reading the team's emails. pg_trgm ships with
-- PostgreSQL (contrib, a trusted extension: a database owner may create it) and with the embedded
-- server; where it is missing the search still works, reading the team's rows newest first.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    EXECUTE 'CREATE INDEX emails_addrs_trgm ON emails USING gin (mailroom_addrs_text(to_addrs) gin_trgm_ops)';
  EXCEPTION WHEN OTHERS THEN
    RAISE NOTICE 'no trigram index for address search (%): searches by part of an address scan', SQLERRM;
  END;
END $$;

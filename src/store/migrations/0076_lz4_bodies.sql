-- Issue 27: the large values written when an email is accepted (emails.raw, html, text_body) and
-- the request log's bodies (request_logs.request_body, response_body) are compressed with lz4
-- instead of pglz. PostgreSQL compresses every value over ~2 KB as it stores it; pglz cost most
-- of the accept statement's CPU for a newsletter-sized email (20 KB of HTML: 1,547-1,573 µs of
-- PostgreSQL CPU per email with pglz, 670-680 with lz4, one client, same rows) and ~25% of a
-- batch request's log row (100 emails in its body). lz4 writes several times faster for a
-- slightly larger result.
--
-- Only the column setting changes: no table is rewritten, existing values stay pglz and are read
-- as before (each value records its own method), new values are lz4. The statement holds an
-- ACCESS EXCLUSIVE lock on each table for a catalog update only (it waits for the statements in
-- flight on the table, then commits at once). An older process in a rolling upgrade runs the same
-- statements and reads both kinds of values. A PostgreSQL built without lz4 keeps pglz.
DO $$
BEGIN
  BEGIN
    ALTER TABLE emails
      ALTER COLUMN raw SET COMPRESSION lz4,
      ALTER COLUMN html SET COMPRESSION lz4,
      ALTER COLUMN text_body SET COMPRESSION lz4;
    ALTER TABLE request_logs
      ALTER COLUMN request_body SET COMPRESSION lz4,
      ALTER COLUMN response_body SET COMPRESSION lz4;
  EXCEPTION WHEN feature_not_supported THEN
    RAISE NOTICE 'bodies stay pglz-compressed (%)', SQLERRM;
  END;
END $$;

-- List mail: an email sent for a topic, a broadcast or an automation step carries RFC 8058 one-click
-- unsubscribe headers, made per recipient at delivery (each recipient its own copy, DKIM-signed after
-- the headers are added). Plain transactional mail keeps one shared copy. list_id is the List-Id
-- header value of a broadcast (RFC 2919), or null.
ALTER TABLE emails ADD COLUMN list_unsubscribe boolean NOT NULL DEFAULT false, ADD COLUMN list_id text;

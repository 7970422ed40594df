-- An export may include the attachments of the address's sent and received emails (issue 29): the
-- result is then a zip (the JSON document plus the files) instead of the JSON document alone.
ALTER TABLE privacy_requests ADD COLUMN include_attachments boolean NOT NULL DEFAULT false;

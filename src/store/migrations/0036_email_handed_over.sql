-- A broadcast copy's hand-over to a delivery attempt (issue 24): the delivery's load sets it, under
-- the email's row lock, unless the email was canceled; a broadcast's cancel cancels only copies
-- without it. Whichever takes the row first wins, so a copy ends delivered (or bounced, failed)
-- or canceled, never both. Not indexed, so setting it leaves the emails' indexes alone.
ALTER TABLE emails ADD COLUMN handed_over_at timestamptz;

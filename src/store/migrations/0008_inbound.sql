-- Inbound mail: received emails (raw and each attachment stored once, in chunks), and what
-- arrives at the VERP return paths (bounces, complaints, auto-replies), kept for inspection.
--
-- email.received events live in email_events (one outbox for webhooks) but point at
-- received_emails, so the events' foreign key moves from the email to the team.
ALTER TABLE email_events DROP CONSTRAINT email_events_email_id_fkey;
ALTER TABLE email_events ADD CONSTRAINT email_events_team_id_fkey FOREIGN KEY (team_id) REFERENCES teams (id) ON DELETE CASCADE;

-- Large contents (raw messages, attachments) as ordered chunks of at most 256 KB, so that a 40 MB
-- message is written and read as a stream, never held whole in memory.
CREATE TABLE blob_chunks (
  blob_id  uuid NOT NULL,
  n        int NOT NULL,
  data     bytea NOT NULL,
  PRIMARY KEY (blob_id, n)
);
-- Stored out of line without compression: most large contents (images, PDFs, archives) are
-- compressed already, and pglz trying each 256 KB chunk cost CPU for nothing.
ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL;

CREATE TABLE received_emails (
  id              uuid PRIMARY KEY,
  team_id         uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  domain_id       uuid REFERENCES domains (id) ON DELETE SET NULL,
  mail_from       text NOT NULL,                 -- envelope sender, '' for the null sender
  received_for    text[] NOT NULL,               -- envelope recipients on this team's domains
  from_addr       text NOT NULL,                 -- bare address of the From header
  to_addrs        text[] NOT NULL DEFAULT '{}',
  cc_addrs        text[] NOT NULL DEFAULT '{}',
  bcc_addrs       text[] NOT NULL DEFAULT '{}',
  reply_to        text[] NOT NULL DEFAULT '{}',
  subject         text NOT NULL DEFAULT '',
  message_id      text,
  html            text,                          -- with cid: references (rewritten on read)
  text_body       text,
  headers         jsonb NOT NULL,                -- lowercase name -> value (array when repeated)
  authentication  jsonb,                         -- {spf, dkim, dmarc, arc}: pass|fail|gray|processing_failed|unknown
  client_ip       text,
  helo            text,
  tls             boolean NOT NULL DEFAULT false,
  raw_blob        uuid,                          -- NULL once purged by retention
  raw_size        bigint NOT NULL,
  raw_purged_at   timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX received_emails_team_created ON received_emails (team_id, created_at DESC, id DESC);
CREATE INDEX received_emails_retention ON received_emails (created_at) WHERE raw_blob IS NOT NULL;

CREATE TABLE received_attachments (
  id                   uuid PRIMARY KEY,
  email_id             uuid NOT NULL REFERENCES received_emails (id) ON DELETE CASCADE,
  team_id              uuid NOT NULL,
  position             int NOT NULL,
  filename             text,
  content_type         text NOT NULL,
  content_id           text,
  content_disposition  text NOT NULL,            -- inline | attachment
  size                 bigint NOT NULL,
  blob_id              uuid,                     -- NULL once purged
  created_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX received_attachments_email ON received_attachments (email_id, position);

-- Everything that reached a return path: matched or not, understood or not (nothing is dropped
-- silently). Bounces and complaints also become events on the original email.
CREATE TABLE return_path_messages (
  id          uuid PRIMARY KEY,
  team_id     uuid REFERENCES teams (id) ON DELETE CASCADE,
  email_id    uuid,                              -- the original email, when matched
  kind        text NOT NULL,                     -- bounce | delay | complaint | auto_reply | unknown
  mail_from   text NOT NULL,
  rcpt_to     text NOT NULL,
  subject     text,
  detail      jsonb NOT NULL,                    -- the parsed report
  raw         bytea,                             -- NULL once purged by retention
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX return_path_messages_email ON return_path_messages (email_id) WHERE email_id IS NOT NULL;
CREATE INDEX return_path_messages_created ON return_path_messages (created_at);

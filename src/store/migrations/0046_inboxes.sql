-- Inboxes (issue 28): hosted mailboxes on addresses of a team's receiving domains. Mail received
-- for an inbox address and mail sent from it is filed into threads (conversations); a message of a
-- thread keeps its own copy of the bodies (the mailbox outlives the retention of received_emails
-- and emails); its id is the received or sent email's id (source_id) unless one received email
-- reached two inboxes of the team. Labels belong to an inbox.
CREATE TABLE inboxes (
  id             uuid PRIMARY KEY,
  team_id        uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  domain_id      uuid NOT NULL REFERENCES domains (id) ON DELETE CASCADE,
  email_address  text NOT NULL,               -- lower case
  name           text,
  from_name      text,
  forwarding     boolean NOT NULL DEFAULT false,
  last_received  timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
-- One inbox per address in the installation: a domain belongs to one team at a time.
CREATE UNIQUE INDEX inboxes_address ON inboxes (email_address);
CREATE INDEX inboxes_team_created ON inboxes (team_id, created_at, id);

CREATE TABLE inbox_threads (
  id               uuid PRIMARY KEY,
  team_id          uuid NOT NULL,
  inbox_id         uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  subject          text,
  subject_key      text NOT NULL,             -- normalised subject (no Re:/Fwd:, lower case): the fallback match
  participants     text[] NOT NULL,           -- sorted outside addresses: the fallback match
  folder           text NOT NULL DEFAULT 'inbox' CHECK (folder IN ('inbox', 'archive', 'spam', 'sent', 'trash')),
  assignee_id      uuid REFERENCES users (id) ON DELETE SET NULL,
  last_message_at  timestamptz NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now()
);
-- Thread lists are newest activity first: (last_message_at, id) is their cursor order.
CREATE INDEX inbox_threads_inbox_activity ON inbox_threads (inbox_id, last_message_at DESC, id DESC);
CREATE INDEX inbox_threads_fallback ON inbox_threads (inbox_id, subject_key, last_message_at);

CREATE TABLE inbox_messages (
  id                 uuid PRIMARY KEY,        -- = received_emails.id (inbound) or emails.id (outbound)
  team_id            uuid NOT NULL,
  inbox_id           uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  thread_id          uuid NOT NULL REFERENCES inbox_threads (id) ON DELETE CASCADE,
  direction          text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  source_id          uuid NOT NULL,           -- the received email (inbound) or sent email (outbound)
  message_id         text,                    -- with its angle brackets, as in the header
  refs               text[] NOT NULL DEFAULT '{}', -- References then In-Reply-To, as found
  from_addr          text NOT NULL,
  to_addrs           text[] NOT NULL DEFAULT '{}',
  cc_addrs           text[] NOT NULL DEFAULT '{}',
  bcc_addrs          text[] NOT NULL DEFAULT '{}',
  reply_to           text[] NOT NULL DEFAULT '{}',
  subject            text,
  html               text,
  text_body          text,
  attachments        jsonb NOT NULL DEFAULT '[]', -- [{id, filename, size, content_type}]
  read               boolean NOT NULL DEFAULT false,
  search             tsvector NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbox_messages_thread ON inbox_messages (thread_id, created_at, id);
CREATE INDEX inbox_messages_message_id ON inbox_messages (inbox_id, message_id) WHERE message_id IS NOT NULL;
CREATE INDEX inbox_messages_unread ON inbox_messages (inbox_id) WHERE NOT read AND direction = 'inbound';
CREATE INDEX inbox_messages_search ON inbox_messages USING gin (search);

CREATE TABLE inbox_labels (
  id          uuid PRIMARY KEY,
  team_id     uuid NOT NULL,
  inbox_id    uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  name        text NOT NULL,
  color       text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX inbox_labels_name ON inbox_labels (inbox_id, lower(name));

CREATE TABLE inbox_thread_labels (
  thread_id  uuid NOT NULL REFERENCES inbox_threads (id) ON DELETE CASCADE,
  label_id   uuid NOT NULL REFERENCES inbox_labels (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (thread_id, label_id)
);
CREATE INDEX inbox_thread_labels_label ON inbox_thread_labels (label_id);

-- Which received emails each inbox has filed (kept two hours): the inboxes.sweep job files received
-- mail that missed its filing, and must not bring back a thread its team removed meanwhile.
CREATE TABLE inbox_filed (
  inbox_id    uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  source_id   uuid NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (source_id, inbox_id)
);
CREATE INDEX inbox_filed_created ON inbox_filed (created_at);

-- Drafts of an inbox (issue 28): standalone, or a reply to one message of a thread. Attachments are
-- stored with the draft (content given or fetched from a `path` when the request was made; 25 MB a
-- draft, checked by the service), replaced whole when a draft's attachments are updated.
CREATE TABLE inbox_drafts (
  id                 uuid PRIMARY KEY,
  team_id            uuid NOT NULL,
  inbox_id           uuid NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
  type               text NOT NULL CHECK (type IN ('standalone', 'reply')),
  thread_id          uuid REFERENCES inbox_threads (id) ON DELETE CASCADE,
  reply_to_email_id  uuid,
  to_addrs           text[],
  cc_addrs           text[] NOT NULL DEFAULT '{}',
  bcc_addrs          text[] NOT NULL DEFAULT '{}',
  subject            text,
  html               text,
  text_body          text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX inbox_drafts_inbox ON inbox_drafts (inbox_id, updated_at DESC, id DESC);
CREATE INDEX inbox_drafts_thread ON inbox_drafts (thread_id) WHERE thread_id IS NOT NULL;

CREATE TABLE inbox_draft_attachments (
  id            uuid PRIMARY KEY,
  draft_id      uuid NOT NULL REFERENCES inbox_drafts (id) ON DELETE CASCADE,
  position      int NOT NULL,
  filename      text NOT NULL,
  content_type  text NOT NULL,
  size          int NOT NULL,
  content       bytea NOT NULL
);
CREATE INDEX inbox_draft_attachments_draft ON inbox_draft_attachments (draft_id, position);

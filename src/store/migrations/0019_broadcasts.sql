-- Broadcasts (resend-compat 7.5): one message to a segment, expanded into one email per eligible
-- contact by the `broadcasts.expand` job. The expansion's keyset cursor (cursor_created_at,
-- cursor_id) advances in the same transaction as the page of emails it produced, so a crash
-- between pages repeats nothing and skips nothing.
CREATE TABLE broadcasts (
  id                uuid PRIMARY KEY,
  team_id           uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
  name              text NOT NULL DEFAULT '',
  segment_id        uuid,               -- no FK: a deleted segment leaves the broadcast readable
  topic_id          uuid,
  from_header       text,
  subject           text,
  reply_to          text[],
  preview_text      text,
  html              text,
  text_body         text,
  -- draft → scheduled | queued → sending → sent; canceled and paused on request (paused also
  -- automatically: pause_reason). Resend's SDK knows draft | queued | sent.
  status            text NOT NULL DEFAULT 'draft'
                    CHECK (status IN ('draft', 'scheduled', 'queued', 'sending', 'sent', 'canceled', 'paused')),
  api_key_id        uuid,
  scheduled_at      timestamptz,
  sent_at           timestamptz,        -- when sending started (Resend: when it was sent)
  completed_at      timestamptz,        -- when the last page was expanded
  paused_at         timestamptz,
  pause_reason      text,
  cursor_created_at timestamptz,        -- the last contact expanded (keyset), null: from the start
  cursor_id         uuid,
  recipients        int NOT NULL DEFAULT 0,  -- emails created
  skipped_unsubscribed int NOT NULL DEFAULT 0,
  skipped_topic     int NOT NULL DEFAULT 0,
  skipped_suppressed int NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX broadcasts_team_created ON broadcasts (team_id, created_at DESC, id DESC);

-- The broadcast an email was sent for (null: any other email). Only broadcast emails are indexed:
-- GET /emails?broadcast_id= and the progress counts read this index; the unique one is the last
-- guard that an address gets a broadcast once, whatever happens to the expansion job.
ALTER TABLE emails ADD COLUMN broadcast_id uuid;
CREATE INDEX emails_broadcast_created ON emails (broadcast_id, created_at DESC, id DESC) WHERE broadcast_id IS NOT NULL;
CREATE UNIQUE INDEX emails_broadcast_recipient ON emails (broadcast_id, lower(to_addrs[1])) WHERE broadcast_id IS NOT NULL;
-- Pacing: how many of a broadcast's emails still wait for delivery (expansion stays ahead of
-- delivery by a bounded window rather than flooding the jobs table).
CREATE INDEX emails_broadcast_queued ON emails (broadcast_id) WHERE broadcast_id IS NOT NULL AND last_event = 'sent';

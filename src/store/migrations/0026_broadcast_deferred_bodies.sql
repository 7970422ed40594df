-- Broadcast emails keep no body of their own: the broadcast holds the message (it cannot change
-- once sent) and each email only its recipient's personalization values (the contact fields and
-- properties the message uses). Delivery and GET /emails/:id render the body from both
-- (broadcasts/bodies.ts). Measured: writing each recipient's html, text and raw MIME cost ~1.5 ms
-- per email at expansion; NULL here means an ordinary email with its own body.
ALTER TABLE emails ADD COLUMN personalization jsonb;

-- Deliverability insights (issue 16): the findings of each email, computed when it is composed
-- and extended by its first delivery result that was not a success. NULL: not analyzed
-- (MAILROOM_INSIGHTS=false, or sent before this migration); [] : analyzed, nothing found.
ALTER TABLE emails ADD COLUMN insights jsonb;

-- Automation timers (issue 15): a delay's or a wait timeout's wake-up is its own job kind,
-- automations.wake, that the timer worker claims and resumes in batches. Wake-ups already queued
-- as automations.step (payload wake: true) become automations.wake, with the same key and due
-- time (a worker of an earlier version still resumes any it queues: automations.step handles them).
UPDATE jobs SET kind = 'automations.wake'
WHERE kind = 'automations.step' AND state = 'pending' AND payload->>'wake' = 'true';

-- email.sent is now counted per recipient in metrics, like deliveries and bounces (issue 17:
-- "Delivered 195 / Sent 193 -> 101%"). Hours rolled up before this counted it per email: drop the
-- rollup so the worker recomputes it; until then metrics read email_events directly.
DELETE FROM email_metrics_hourly;
DELETE FROM email_metrics_rollup;

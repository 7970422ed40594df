-- Per-team dashboard session policy (issue 29): an absolute lifetime in hours (NULL = none, as
-- before) and an idle timeout in minutes (default 20160 = the 14-day sliding expiry of before).
ALTER TABLE teams
  ADD COLUMN session_lifetime_hours int CHECK (session_lifetime_hours BETWEEN 1 AND 8760),
  ADD COLUMN session_idle_minutes int NOT NULL DEFAULT 20160 CHECK (session_idle_minutes BETWEEN 5 AND 20160);

-- Allowed sign-in methods per team (all three by default, as before), and the method that started
-- each session (NULL for sessions from before: never refused for their method).
ALTER TABLE teams
  ADD COLUMN sign_in_methods text[] NOT NULL DEFAULT '{password,google,github}'
    CHECK (cardinality(sign_in_methods) >= 1 AND sign_in_methods <@ '{password,google,github}');
ALTER TABLE sessions ADD COLUMN sign_in_method text CHECK (sign_in_method IN ('password', 'google', 'github'));

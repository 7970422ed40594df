-- Until this release an invite sign-up took a password before the address was proven, so whoever
-- typed an address could set the password its owner would later confirm (issue 24: an account
-- takeover). Such passwords are discarded: on accounts still unproven, and on proven accounts whose
-- password dates from the sign-up (a used confirmation link and no password reset used since the
-- address was proven). Their owners set a password with "Forgot password" (system mail works on
-- these installations: the sign-up needed it) or sign in with GitHub/Google; their sessions end.
WITH taken AS (
  SELECT u.id FROM users u
  WHERE u.password_hash IS NOT NULL
    AND (u.email_verified_at IS NULL
      OR (EXISTS (SELECT 1 FROM email_verifications v WHERE v.user_id = u.id AND v.used_at IS NOT NULL)
          AND NOT EXISTS (SELECT 1 FROM password_resets r WHERE r.user_id = u.id AND r.used_at IS NOT NULL AND r.used_at >= u.email_verified_at)))
), ended AS (DELETE FROM sessions WHERE user_id IN (SELECT id FROM taken))
UPDATE users SET password_hash = NULL WHERE id IN (SELECT id FROM taken);

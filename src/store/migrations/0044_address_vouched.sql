-- A set-password link an inviter hands over (issue 30) proves only that its holder got it from the
-- inviter, not that they own the address: such an account's address is "vouched". A provider
-- sign-in with that verified email claims a vouched account as it claims an unproven one (password
-- removed, sessions ended), so an inviter cannot hold the password of an account the address's
-- real owner later signs in to. An emailed link opened later (a password reset) proves the address
-- and clears the mark.
ALTER TABLE email_verifications ADD COLUMN handed_over boolean NOT NULL DEFAULT false;
ALTER TABLE users ADD COLUMN email_vouched boolean NOT NULL DEFAULT false;

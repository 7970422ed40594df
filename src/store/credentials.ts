// Second factors and alternative ways in: recovery codes (hashed, one use), OAuth account links,
// password-reset tokens (hashed, one use, short-lived).
import type { Queryable } from './db.js';

export async function recoveryCodesReplace(db: Queryable, userId: string, hashes: string[]): Promise<void> {
  await db.query(
    `WITH d AS (DELETE FROM recovery_codes WHERE user_id = $1)
     INSERT INTO recovery_codes (user_id, code_hash) SELECT $1, h FROM unnest($2::text[]) AS h`,
    [userId, hashes],
  );
}

/** Uses a recovery code; false when it is unknown or was used already. */
export async function recoveryCodeConsume(db: Queryable, userId: string, hash: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'UPDATE recovery_codes SET used_at = now() WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL',
    [userId, hash],
  );
  return Boolean(rowCount);
}

export async function recoveryCodesRemaining(db: Queryable, userId: string): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    'SELECT count(*) AS n FROM recovery_codes WHERE user_id = $1 AND used_at IS NULL',
    [userId],
  );
  return Number(rows[0].n);
}

export async function oauthAccountFind(
  db: Queryable,
  provider: string,
  subject: string,
): Promise<{ user_id: string } | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    'SELECT user_id FROM oauth_accounts WHERE provider = $1 AND subject = $2',
    [provider, subject],
  );
  return rows[0];
}

export async function oauthAccountLink(
  db: Queryable,
  a: { provider: string; subject: string; userId: string; email: string },
): Promise<void> {
  await db.query(
    'INSERT INTO oauth_accounts (provider, subject, user_id, email) VALUES ($1, $2, $3, $4) ON CONFLICT (provider, subject) DO NOTHING',
    [a.provider, a.subject, a.userId, a.email],
  );
}

export async function oauthAccountsOfUser(db: Queryable, userId: string) {
  const { rows } = await db.query<{ provider: string; email: string }>(
    'SELECT provider, email FROM oauth_accounts WHERE user_id = $1 ORDER BY provider',
    [userId],
  );
  return rows;
}

export async function passwordResetInsert(
  db: Queryable,
  tokenHash: string,
  userId: string,
  expiresAt: Date,
): Promise<void> {
  // A new link retires the user's older ones: only the latest email works.
  await db.query(
    `WITH old AS (UPDATE password_resets SET used_at = now() WHERE user_id = $2 AND used_at IS NULL)
     INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES ($1, $2, $3)`,
    [tokenHash, userId, expiresAt],
  );
}

/** Uses a reset token; the user it was for, or undefined when unknown, used or expired. */
export async function passwordResetConsume(db: Queryable, tokenHash: string): Promise<string | undefined> {
  const { rows } = await db.query<{ user_id: string }>(
    `WITH used AS (UPDATE password_resets SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id),
     others AS (UPDATE password_resets p SET used_at = now() FROM used WHERE p.user_id = used.user_id AND p.token_hash <> $1 AND p.used_at IS NULL)
     SELECT user_id FROM used`,
    [tokenHash],
  );
  return rows[0]?.user_id;
}

export async function passwordResetValid(db: Queryable, tokenHash: string): Promise<boolean> {
  const { rowCount } = await db.query(
    'SELECT 1 FROM password_resets WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()',
    [tokenHash],
  );
  return Boolean(rowCount);
}

export async function emailVerificationInsert(
  db: Queryable,
  v: { tokenHash: string; userId: string; inviteId: string | null; expiresAt: Date; handedOver?: boolean },
): Promise<void> {
  await db.query(
    'INSERT INTO email_verifications (token_hash, user_id, invite_id, expires_at, handed_over) VALUES ($1, $2, $3, $4, $5)',
    [v.tokenHash, v.userId, v.inviteId, v.expiresAt, v.handedOver ?? false],
  );
}

/** A verification link still open: its user (and whether the address is proven yet) and the invite it came with. */
export async function emailVerificationFindOpen(
  db: Queryable,
  tokenHash: string,
): Promise<{ user_id: string; email: string; email_verified: boolean; invite_id: string | null } | undefined> {
  const { rows } = await db.query<{
    user_id: string;
    email: string;
    email_verified: boolean;
    invite_id: string | null;
  }>(
    `SELECT v.user_id, u.email, u.email_verified_at IS NOT NULL AS email_verified, v.invite_id
     FROM email_verifications v JOIN users u ON u.id = v.user_id
     WHERE v.token_hash = $1 AND v.used_at IS NULL AND v.expires_at > now()`,
    [tokenHash],
  );
  return rows[0];
}

/** Uses a verification link (once): its user and the invite it came with. The caller proves the address (userProveAddress). */
export async function emailVerificationConsume(
  db: Queryable,
  tokenHash: string,
): Promise<{ user_id: string; invite_id: string | null; handed_over: boolean } | undefined> {
  const { rows } = await db.query<{ user_id: string; invite_id: string | null; handed_over: boolean }>(
    'UPDATE email_verifications SET used_at = now() WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now() RETURNING user_id, invite_id, handed_over',
    [tokenHash],
  );
  return rows[0];
}

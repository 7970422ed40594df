// OAuth 2.0 authorization server rows (migration 0042): clients, grants, one-time codes, tokens.
// Codes and tokens are looked up by the SHA-256 hex of their value; the values are never stored.
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';
import type { Permission } from './api-keys.js';

export interface OAuthClientRow {
  id: string;
  name: string;
  logo_uri: string | null;
  redirect_uris: string[];
  confidential: boolean;
  created_at: string;
}

export interface OAuthClientAuthRow extends OAuthClientRow {
  secret_hash: string | null;
}

const CLIENT_COLUMNS =
  'id, name, logo_uri, redirect_uris, secret_hash IS NOT NULL AS confidential, created_at::text AS created_at';

export async function oauthClientInsert(
  db: Queryable,
  c: { id: string; name: string; logoUri: string | null; redirectUris: string[]; secretHash: string | null },
): Promise<void> {
  await db.query(
    'INSERT INTO oauth_clients (id, name, logo_uri, redirect_uris, secret_hash) VALUES ($1, $2, $3, $4, $5)',
    [c.id, c.name, c.logoUri, c.redirectUris, c.secretHash],
  );
}

export async function oauthClientList(db: Queryable): Promise<OAuthClientRow[]> {
  const { rows } = await db.query<OAuthClientRow>(
    `SELECT ${CLIENT_COLUMNS} FROM oauth_clients ORDER BY created_at DESC, id DESC`,
  );
  return rows;
}

export async function oauthClientFind(db: Queryable, id: string): Promise<OAuthClientAuthRow | undefined> {
  const { rows } = await db.query<OAuthClientAuthRow>(
    `SELECT ${CLIENT_COLUMNS}, secret_hash FROM oauth_clients WHERE id = $1`,
    [id],
  );
  return rows[0];
}

/** Deleting a client deletes its grants, codes and tokens (cascade): every token of it stops. */
export async function oauthClientDelete(db: Queryable, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM oauth_clients WHERE id = $1', [id]);
  return Boolean(rowCount);
}

export interface OAuthCodeRow {
  client_id: string;
  team_id: string;
  user_id: string | null;
  scopes: string[];
  redirect_uri: string;
  code_challenge: string;
  expired: boolean;
}

export async function oauthCodeInsert(
  db: Queryable,
  c: {
    codeHash: string;
    clientId: string;
    teamId: string;
    userId: string;
    scopes: string[];
    redirectUri: string;
    codeChallenge: string;
    expiresAt: Date;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO oauth_codes (code_hash, client_id, team_id, user_id, scopes, redirect_uri, code_challenge, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [c.codeHash, c.clientId, c.teamId, c.userId, c.scopes, c.redirectUri, c.codeChallenge, c.expiresAt],
  );
}

export type CodeUse =
  | { kind: 'fresh'; code: OAuthCodeRow }
  | { kind: 'used'; grantId: string | null }
  | { kind: 'unknown' };

/** Marks the code used, once: concurrent exchanges of one code see one 'fresh' between them. */
export async function oauthCodeUse(db: Queryable, codeHash: string): Promise<CodeUse> {
  const { rows } = await db.query<OAuthCodeRow>(
    `UPDATE oauth_codes SET used_at = now() WHERE code_hash = $1 AND used_at IS NULL
     RETURNING client_id, team_id, user_id, scopes, redirect_uri, code_challenge, expires_at <= now() AS expired`,
    [codeHash],
  );
  if (rows[0]) return { kind: 'fresh', code: rows[0] };
  const used = await db.query<{ grant_id: string | null }>('SELECT grant_id FROM oauth_codes WHERE code_hash = $1', [
    codeHash,
  ]);
  return used.rows[0] ? { kind: 'used', grantId: used.rows[0].grant_id } : { kind: 'unknown' };
}

export async function oauthCodeSetGrant(db: Queryable, codeHash: string, grantId: string): Promise<void> {
  await db.query('UPDATE oauth_codes SET grant_id = $2 WHERE code_hash = $1', [codeHash, grantId]);
}

export interface OAuthGrantRow {
  id: string;
  client_id: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
  revoked_reason: string | null;
  client: { name: string; logo_uri: string | null };
}

export async function oauthGrantInsert(
  db: Queryable,
  g: { id: string; teamId: string; clientId: string; userId: string | null; scopes: string[] },
): Promise<void> {
  await db.query('INSERT INTO oauth_grants (id, team_id, client_id, user_id, scopes) VALUES ($1, $2, $3, $4, $5)', [
    g.id,
    g.teamId,
    g.clientId,
    g.userId,
    g.scopes,
  ]);
}

// Timestamps as PostgreSQL's text, as Resend's own list answers them ("2026-04-08 00:11:13.110779+00").
const GRANT_COLUMNS = `oauth_grants.id, oauth_grants.client_id, oauth_grants.scopes,
  oauth_grants.created_at::text AS created_at, oauth_grants.revoked_at::text AS revoked_at, oauth_grants.revoked_reason,
  (SELECT json_build_object('name', c.name, 'logo_uri', c.logo_uri) FROM oauth_clients c WHERE c.id = oauth_grants.client_id) AS client`;

export async function oauthGrantList(db: Queryable, teamId: string, page: PageQuery): Promise<Page<OAuthGrantRow>> {
  return paginate<OAuthGrantRow>(db, { table: 'oauth_grants', teamId, page, columns: GRANT_COLUMNS });
}

/**
 * Revokes a live grant (of this team, unless teamId is null): its id, time and reason, or undefined
 * when there is no such grant or it was already revoked (the first revocation is kept).
 */
export async function oauthGrantRevoke(
  db: Queryable,
  teamId: string | null,
  id: string,
  reason: string,
): Promise<{ id: string; revoked_at: string; revoked_reason: string; team_id: string } | undefined> {
  const { rows } = await db.query<{ id: string; revoked_at: string; revoked_reason: string; team_id: string }>(
    `UPDATE oauth_grants SET revoked_at = now(), revoked_reason = $3
     WHERE id = $1 AND ($2::uuid IS NULL OR team_id = $2) AND revoked_at IS NULL
     RETURNING id, revoked_at::text AS revoked_at, revoked_reason, team_id`,
    [id, teamId, reason],
  );
  return rows[0];
}

/**
 * Codes and tokens a day past their expiry (the hourly expiry job): refused as expired by then
 * already, kept that day so that a code or rotated refresh token presented again late is still
 * recognised as reused (and revokes its grant). Returns how many rows went.
 */
export async function oauthDeleteExpired(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `WITH codes AS (DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 day' RETURNING 1),
          tokens AS (DELETE FROM oauth_tokens WHERE expires_at < now() - interval '1 day' RETURNING 1)
     SELECT (SELECT count(*) FROM codes)::int + (SELECT count(*) FROM tokens)::int AS n`,
  );
  return rows[0].n;
}

export async function oauthTokenInsert(
  db: Queryable,
  t: { tokenHash: string; grantId: string; kind: 'access' | 'refresh'; expiresAt: Date },
): Promise<void> {
  await db.query('INSERT INTO oauth_tokens (token_hash, grant_id, kind, expires_at) VALUES ($1, $2, $3, $4)', [
    t.tokenHash,
    t.grantId,
    t.kind,
    t.expiresAt,
  ]);
}

export interface OAuthAccess {
  grant_id: string;
  team_id: string;
  permission: Permission;
}

/** A live access token: not expired, its grant not revoked (checked on every request, no cache). */
export async function oauthAccessFind(db: Queryable, tokenHash: string): Promise<OAuthAccess | undefined> {
  const { rows } = await db.query<OAuthAccess>(
    `SELECT g.id AS grant_id, g.team_id,
       CASE WHEN 'full_access' = ANY(g.scopes) THEN 'full_access' ELSE 'sending_access' END AS permission
     FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
     WHERE t.token_hash = $1 AND t.kind = 'access' AND t.expires_at > now() AND g.revoked_at IS NULL`,
    [tokenHash],
  );
  return rows[0];
}

export type RefreshUse =
  | { kind: 'fresh'; grantId: string; clientId: string; scopes: string[]; revoked: boolean; expired: boolean }
  | { kind: 'used'; grantId: string; clientId: string }
  | { kind: 'unknown' };

/** Marks a refresh token used, once (rotation); a second presentation answers 'used'. */
export async function oauthRefreshUse(db: Queryable, tokenHash: string): Promise<RefreshUse> {
  const { rows } = await db.query<{
    grant_id: string;
    client_id: string;
    scopes: string[];
    revoked: boolean;
    expired: boolean;
    fresh: boolean;
  }>(
    `WITH used AS (
       UPDATE oauth_tokens SET used_at = now() WHERE token_hash = $1 AND kind = 'refresh' AND used_at IS NULL
       RETURNING grant_id, expires_at <= now() AS expired)
     SELECT g.id AS grant_id, g.client_id, g.scopes, g.revoked_at IS NOT NULL AS revoked,
       coalesce((SELECT expired FROM used), true) AS expired, EXISTS (SELECT 1 FROM used) AS fresh
     FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id
     WHERE t.token_hash = $1 AND t.kind = 'refresh'`,
    [tokenHash],
  );
  const r = rows[0];
  if (!r) return { kind: 'unknown' };
  if (!r.fresh) return { kind: 'used', grantId: r.grant_id, clientId: r.client_id };
  return {
    kind: 'fresh',
    grantId: r.grant_id,
    clientId: r.client_id,
    scopes: r.scopes,
    revoked: r.revoked,
    expired: r.expired,
  };
}

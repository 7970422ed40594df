// API keys: stored as SHA-256 hashes of the token; the token itself is never stored.
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export type Permission = 'full_access' | 'sending_access';

export interface ApiKeyAuth {
  id: string;
  team_id: string;
  permission: Permission;
  domain_id: string | null;
  /** shown as the actor of audit entries */
  name?: string;
  /** Mailroom extensions (migration 0057): null = never expires / any network */
  expires_at?: Date | null;
  allowed_networks?: string[] | null;
}

export interface ApiKeyListItem {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  allowed_networks: string[] | null;
}

export async function apiKeyInsert(
  db: Queryable,
  k: {
    id: string;
    teamId: string;
    name: string;
    tokenHash: string;
    tokenHint: string;
    permission: Permission;
    domainId: string | null;
    expiresAt?: Date | null;
    allowedNetworks?: string[] | null;
  },
): Promise<void> {
  await db.query(
    `INSERT INTO api_keys (id, team_id, name, token_hash, token_hint, permission, domain_id, expires_at, allowed_networks)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      k.id,
      k.teamId,
      k.name,
      k.tokenHash,
      k.tokenHint,
      k.permission,
      k.domainId,
      k.expiresAt ?? null,
      k.allowedNetworks ?? null,
    ],
  );
}

export async function apiKeyFindByHash(db: Queryable, tokenHash: string): Promise<ApiKeyAuth | undefined> {
  const { rows } = await db.query<ApiKeyAuth>(
    'SELECT id, team_id, permission, domain_id, name, expires_at, allowed_networks FROM api_keys WHERE token_hash = $1',
    [tokenHash],
  );
  return rows[0];
}

export async function apiKeyList(db: Queryable, teamId: string, page: PageQuery): Promise<Page<ApiKeyListItem>> {
  return paginate<ApiKeyListItem>(db, {
    table: 'api_keys',
    teamId,
    page,
    // expires_at and allowed_networks: Mailroom extensions, extra fields on Resend's list.
    columns:
      'id, name, created_at::text AS created_at, last_used_at::text AS last_used_at, expires_at::text AS expires_at, allowed_networks',
  });
}

/** The dashboard's view of every key of a team: what it may do, its domain and the token's first characters. */
export interface ApiKeyDetail extends ApiKeyListItem {
  permission: Permission;
  domain_id: string | null;
  domain_name: string | null;
  token_hint: string;
  expires_at: string | null;
  allowed_networks: string[] | null;
}

export async function apiKeyListDetailed(db: Queryable, teamId: string): Promise<ApiKeyDetail[]> {
  const { rows } = await db.query<ApiKeyDetail>(
    `SELECT k.id, k.name, k.created_at::text AS created_at, k.last_used_at::text AS last_used_at, k.permission, k.domain_id, d.name AS domain_name, k.token_hint,
       k.expires_at::text AS expires_at, k.allowed_networks
     FROM api_keys k LEFT JOIN domains d ON d.id = k.domain_id WHERE k.team_id = $1 ORDER BY k.created_at DESC, k.id DESC`,
    [teamId],
  );
  return rows;
}

export async function apiKeyDelete(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<{ token_hash: string; name: string; permission: Permission } | undefined> {
  const { rows } = await db.query<{ token_hash: string; name: string; permission: Permission }>(
    'DELETE FROM api_keys WHERE team_id = $1 AND id = $2 RETURNING token_hash, name, permission',
    [teamId, id],
  );
  return rows[0];
}

/** The key's previous name, or undefined when the team has no such key. */
export async function apiKeyRename(
  db: Queryable,
  teamId: string,
  id: string,
  name: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ before: string }>(
    `UPDATE api_keys k SET name = $3 FROM (SELECT id, name FROM api_keys WHERE team_id = $1 AND id = $2 FOR UPDATE) old
     WHERE k.id = old.id RETURNING old.name AS before`,
    [teamId, id, name],
  );
  return rows[0]?.before;
}

/**
 * Changes a key's expiry and/or allowed networks (a field left undefined keeps its value; null
 * lifts the limit). Answers the values before and the token hash (for the cache), or undefined.
 */
export async function apiKeyUpdateLimits(
  db: Queryable,
  teamId: string,
  id: string,
  change: { expiresAt?: Date | null; allowedNetworks?: string[] | null },
): Promise<{ expires_at: Date | null; allowed_networks: string[] | null; token_hash: string } | undefined> {
  const { rows } = await db.query(
    `UPDATE api_keys k SET
       expires_at = CASE WHEN $3 THEN $4::timestamptz ELSE k.expires_at END,
       allowed_networks = CASE WHEN $5 THEN $6::text[] ELSE k.allowed_networks END
     FROM (SELECT id, expires_at, allowed_networks FROM api_keys WHERE team_id = $1 AND id = $2 FOR UPDATE) old
     WHERE k.id = old.id
     RETURNING old.expires_at, old.allowed_networks, k.token_hash`,
    [
      teamId,
      id,
      change.expiresAt !== undefined,
      change.expiresAt ?? null,
      change.allowedNetworks !== undefined,
      change.allowedNetworks ?? null,
    ],
  );
  return rows[0];
}

/** Marks keys used; called in batches (at most once a minute per key) off the request path. */
export async function apiKeyTouchMany(db: Queryable, ids: string[]): Promise<void> {
  if (ids.length) await db.query('UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1::uuid[])', [ids]);
}

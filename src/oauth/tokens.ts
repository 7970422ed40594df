// The token endpoint (RFC 6749 4.1.3 and 6, PKCE RFC 7636 4.6) and the access-token check the API
// hook uses. Access tokens live ACCESS_TTL_S (Resend's 900 s); refresh tokens REFRESH_TTL_S from
// their issue (Resend's 60 days) and are used once: each refresh answers a new pair, and a refresh
// token presented after its rotation revokes the whole grant (RFC 6819 5.2.2.3, OAuth 2.1 4.3.1),
// as does a second use of an authorization code (RFC 6749 4.1.2). Errors are RFC 6749 5.2's.
import type { RequestOrigin } from '../audit/actor.js';
import { auditRecord } from '../audit/record.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomToken, sha256Hex, uuid, isUuid } from '../lib/ids.js';
import { withTx, type Pool } from '../store/db.js';
import {
  oauthAccessFind,
  oauthClientFind,
  oauthCodeSetGrant,
  oauthCodeUse,
  oauthGrantInsert,
  oauthGrantRevoke,
  oauthRefreshUse,
  oauthTokenInsert,
  type OAuthAccess,
  type OAuthClientAuthRow,
} from '../store/oauth.js';
import type { Queryable } from '../store/db.js';

const ACCESS_TTL_S = 900;
const REFRESH_TTL_S = 60 * 86400;
/** Access tokens are told from API keys (`re_` + 8 + `_` + 24) by this prefix. */
export const ACCESS_PREFIX = 're_oauth_';
const REFRESH_PREFIX = 're_refresh_';

export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
  }
  toBody() {
    return { error: this.error, error_description: this.description };
  }
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

type Params = Record<string, unknown>;
const param = (p: Params, k: string): string | undefined => {
  const v = p[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new OAuthError('invalid_request', `${k} must be a string.`);
  return v;
};
const required = (p: Params, k: string): string => {
  const v = param(p, k);
  if (!v) throw new OAuthError('invalid_request', `${k} is required.`);
  return v;
};

const sameSecret = (given: string, hash: string) => {
  const a = Buffer.from(sha256Hex(given), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
};

/**
 * The client of a token request: HTTP Basic (RFC 6749 2.3.1, form-encoded id and secret) or
 * client_id (and client_secret) in the body. A confidential client must prove its secret; a
 * public one sends none.
 */
async function authenticateClient(
  db: Queryable,
  p: Params,
  authorization: string | undefined,
): Promise<OAuthClientAuthRow> {
  let id = param(p, 'client_id');
  let secret = param(p, 'client_secret');
  const basic = authorization ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization) : null;
  if (authorization && !basic)
    throw new OAuthError('invalid_client', 'Client authentication must be HTTP Basic or in the body.', 401);
  if (basic) {
    if (secret !== undefined) throw new OAuthError('invalid_request', 'Use one client authentication method.');
    const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
    const i = decoded.indexOf(':');
    const basicId = decodeURIComponent(i < 0 ? decoded : decoded.slice(0, i));
    if (id !== undefined && id !== basicId)
      throw new OAuthError('invalid_request', 'client_id differs from the Basic one.');
    id = basicId;
    secret = i < 0 ? '' : decodeURIComponent(decoded.slice(i + 1));
  }
  if (!id) throw new OAuthError('invalid_request', 'client_id is required.');
  const client = isUuid(id) ? await oauthClientFind(db, id) : undefined;
  const unauthorized = new OAuthError('invalid_client', 'Client authentication failed.', 401);
  if (!client) throw unauthorized;
  if (client.secret_hash ? !secret || !sameSecret(secret, client.secret_hash) : secret) throw unauthorized;
  return client;
}

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

function sameChallenge(verifier: string, challenge: string): boolean {
  const a = Buffer.from(s256(verifier));
  const b = Buffer.from(challenge);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function issue(db: Queryable, grantId: string, scopes: string[]): Promise<TokenAnswer> {
  const access = `${ACCESS_PREFIX}${randomToken(43)}`;
  const refresh = `${REFRESH_PREFIX}${randomToken(43)}`;
  const now = Date.now();
  await oauthTokenInsert(db, {
    tokenHash: sha256Hex(access),
    grantId,
    kind: 'access',
    expiresAt: new Date(now + ACCESS_TTL_S * 1000),
  });
  await oauthTokenInsert(db, {
    tokenHash: sha256Hex(refresh),
    grantId,
    kind: 'refresh',
    expiresAt: new Date(now + REFRESH_TTL_S * 1000),
  });
  return {
    access_token: access,
    token_type: 'Bearer',
    expires_in: ACCESS_TTL_S,
    refresh_token: refresh,
    scope: scopes.join(' '),
  };
}

const badGrant = (why: string) => new OAuthError('invalid_grant', why);

async function exchangeCode(pool: Pool, p: Params, client: OAuthClientAuthRow): Promise<TokenAnswer> {
  const code = required(p, 'code');
  const redirectUri = required(p, 'redirect_uri');
  const verifier = required(p, 'code_verifier');
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier))
    throw new OAuthError('invalid_request', 'code_verifier must be 43 to 128 characters of [A-Za-z0-9._~-].');
  const codeHash = sha256Hex(code);
  // One transaction, committed whatever the outcome: the code is spent by its first try (a wrong
  // verifier included), and a concurrent second exchange waits on the row until the first commits,
  // then finds the grant it made and revokes it.
  const outcome = await withTx(pool, async (tx): Promise<TokenAnswer | OAuthError> => {
    const use = await oauthCodeUse(tx, codeHash);
    if (use.kind === 'unknown') return badGrant('The authorization code is invalid.');
    if (use.kind === 'used') {
      if (use.grantId) await oauthGrantRevoke(tx, null, use.grantId, 'authorization_code_reused');
      return badGrant('The authorization code was already used; the tokens issued for it are revoked.');
    }
    const c = use.code;
    if (c.expired) return badGrant('The authorization code has expired.');
    if (c.client_id !== client.id) return badGrant('The authorization code was issued to another client.');
    if (c.redirect_uri !== redirectUri) return badGrant('redirect_uri differs from the authorization request.');
    if (!sameChallenge(verifier, c.code_challenge)) return badGrant('code_verifier does not match the code_challenge.');
    const grantId = uuid();
    await oauthGrantInsert(tx, {
      id: grantId,
      teamId: c.team_id,
      clientId: client.id,
      userId: c.user_id,
      scopes: c.scopes,
    });
    await oauthCodeSetGrant(tx, codeHash, grantId);
    return issue(tx, grantId, c.scopes);
  });
  if (outcome instanceof OAuthError) throw outcome;
  return outcome;
}

async function refresh(pool: Pool, p: Params, client: OAuthClientAuthRow): Promise<TokenAnswer> {
  const token = required(p, 'refresh_token');
  const use = await oauthRefreshUse(pool, sha256Hex(token));
  if (use.kind === 'unknown') throw badGrant('The refresh token is invalid.');
  if (use.kind === 'used') {
    // Two holders of one refresh token: the grant cannot tell the client from a thief, so it ends.
    await oauthGrantRevoke(pool, null, use.grantId, 'refresh_token_reused');
    throw badGrant('The refresh token was already used; the grant is revoked.');
  }
  if (use.clientId !== client.id) throw badGrant('The refresh token was issued to another client.');
  if (use.revoked) throw badGrant('The grant of this refresh token is revoked.');
  if (use.expired) throw badGrant('The refresh token has expired.');
  const scope = param(p, 'scope');
  if (scope !== undefined && scope.split(' ').filter(Boolean).join(' ') !== use.scopes.join(' '))
    throw new OAuthError('invalid_scope', `scope must be the granted one ("${use.scopes.join(' ')}") or absent.`);
  return withTx(pool, (tx) => issue(tx, use.grantId, use.scopes));
}

/** POST /oauth/token: the answer, or throws OAuthError. */
export async function tokenRequest(pool: Pool, p: Params, authorization: string | undefined): Promise<TokenAnswer> {
  const grantType = param(p, 'grant_type');
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  const client = await authenticateClient(pool, p, authorization);
  if (grantType === 'authorization_code') return exchangeCode(pool, p, client);
  if (grantType === 'refresh_token') return refresh(pool, p, client);
  throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token.');
}

/**
 * POST /oauth/revoke (RFC 7009): a refresh token of the client revokes its grant. Unknown tokens
 * and access tokens answer the same 200 (nothing to tell a caller who guesses).
 */
export async function revokeRequest(
  pool: Pool,
  p: Params,
  authorization: string | undefined,
  origin: RequestOrigin,
): Promise<void> {
  const client = await authenticateClient(pool, p, authorization);
  const token = required(p, 'token');
  if (!token.startsWith(REFRESH_PREFIX)) return;
  const use = await oauthRefreshUse(pool, sha256Hex(token));
  if (use.kind !== 'unknown' && use.clientId === client.id)
    await withTx(pool, async (tx) => {
      const g = await oauthGrantRevoke(tx, null, use.grantId, 'revoked_by_client');
      if (g)
        await auditRecord(
          tx,
          g.team_id,
          { kind: 'oauth', id: g.id, display: client.name, ...origin },
          {
            action: 'oauth_grant.revoked',
            target: { kind: 'oauth_grant', id: g.id },
            after: { reason: g.revoked_reason, client_id: client.id },
          },
        );
    });
}

export const isAccessToken = (token: string) => token.startsWith(ACCESS_PREFIX);

/** The grant behind a live access token (no cache: a revocation stops it on the next request). */
export function findAccess(db: Queryable, token: string): Promise<OAuthAccess | undefined> {
  return oauthAccessFind(db, sha256Hex(token));
}

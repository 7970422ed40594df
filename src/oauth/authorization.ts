// The authorization request (RFC 6749 4.1.1 with PKCE, RFC 7636): checked when the client sends
// the browser to GET /oauth/authorize, again when the consent page shows it, and once more when
// the user approves, so nothing the browser carries in between is trusted. Approval issues a
// one-time code bound to the client, the exact redirect URI, the PKCE challenge, the team and the
// scope; it lives CODE_TTL_S seconds (Resend's 10 minutes, RFC 6749 4.1.2's maximum).
import { auditRecord, inTx, type AuditActor } from '../audit/record.js';
import { randomToken, sha256Hex, isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import { oauthClientFind, oauthCodeInsert, type OAuthClientRow } from '../store/oauth.js';
import type { Permission } from '../store/api-keys.js';

const CODE_TTL_S = 600;
export const SCOPES: readonly Permission[] = ['full_access', 'sending_access'];
const MAX_STATE = 2000;

export interface AuthorizationRequest {
  client: Pick<OAuthClientRow, 'id' | 'name' | 'logo_uri'>;
  redirectUri: string;
  scope: Permission;
  state: string | null;
  codeChallenge: string;
}

export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  /** the client or redirect URI cannot be trusted: tell the user, never redirect (RFC 6749 4.1.2.1) */
  | { ok: false; redirect: null; error: string; description: string }
  /** anything else goes back to the client's redirect URI */
  | { ok: false; redirect: string; error: string; description: string };

type Query = Record<string, unknown>;

const str = (q: Query, k: string): string | undefined => (typeof q[k] === 'string' ? (q[k] as string) : undefined);

/** The redirect URI with the answer's parameters added (its own query kept). */
export function redirectWith(uri: string, params: Record<string, string | null>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null) u.searchParams.set(k, v);
  return u.toString();
}

export async function checkAuthorization(db: Queryable, q: Query): Promise<AuthorizationCheck> {
  const clientId = str(q, 'client_id');
  const client = clientId && isUuid(clientId) ? await oauthClientFind(db, clientId) : undefined;
  if (!client) return { ok: false, redirect: null, error: 'invalid_client', description: 'Unknown client_id.' };
  const redirectUri = str(q, 'redirect_uri');
  if (!redirectUri || !client.redirect_uris.includes(redirectUri))
    return {
      ok: false,
      redirect: null,
      error: 'invalid_request',
      description: `redirect_uri must be exactly one of the URIs registered for ${client.name}.`,
    };
  const state = str(q, 'state') ?? null;
  const fail = (error: string, description: string): AuthorizationCheck => ({
    ok: false,
    error,
    description,
    redirect: redirectWith(redirectUri, { error, error_description: description, state }),
  });
  if (state !== null && state.length > MAX_STATE) return fail('invalid_request', `state is longer than ${MAX_STATE}.`);
  if (str(q, 'response_type') !== 'code') return fail('unsupported_response_type', 'response_type must be "code".');
  const challenge = str(q, 'code_challenge');
  if (!challenge)
    return fail('invalid_request', 'PKCE is required: send code_challenge and code_challenge_method=S256.');
  if (str(q, 'code_challenge_method') !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256 (plain is not accepted).');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters).');
  const scopes = (str(q, 'scope') ?? '').split(' ').filter(Boolean);
  if (scopes.length !== 1 || !SCOPES.includes(scopes[0] as Permission))
    return fail('invalid_scope', 'scope must be "full_access" or "sending_access".');
  return {
    ok: true,
    request: {
      client: { id: client.id, name: client.name, logo_uri: client.logo_uri },
      redirectUri,
      scope: scopes[0] as Permission,
      state,
      codeChallenge: challenge,
    },
  };
}

/** Issues the one-time code for an approved request; the URI to send the browser to. */
export async function approve(
  db: Queryable,
  r: AuthorizationRequest,
  who: { userId: string; teamId: string },
  actor: AuditActor,
): Promise<string> {
  const code = randomToken(43);
  await inTx(db, async (tx) => {
    await auditRecord(tx, who.teamId, actor, {
      action: 'oauth_grant.given',
      target: { kind: 'oauth_client', id: r.client.id },
      after: { client: r.client.name, scope: r.scope, redirect_uri: r.redirectUri },
    });
    await oauthCodeInsert(tx, {
      codeHash: sha256Hex(code),
      clientId: r.client.id,
      teamId: who.teamId,
      userId: who.userId,
      scopes: [r.scope],
      redirectUri: r.redirectUri,
      codeChallenge: r.codeChallenge,
      expiresAt: new Date(Date.now() + CODE_TTL_S * 1000),
    });
  });
  return redirectWith(r.redirectUri, { code, state: r.state });
}

export function deny(r: AuthorizationRequest): string {
  return redirectWith(r.redirectUri, {
    error: 'access_denied',
    error_description: 'The user denied the request.',
    state: r.state,
  });
}

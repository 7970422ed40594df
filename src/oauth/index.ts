// Mailroom as an OAuth 2.0 authorization server for third-party integrations (issue 28): the one
// object the HTTP layer is given. Clients are the operator's (clients.ts); the authorization
// request and its consent (authorization.ts); the token endpoint (tokens.ts); a team's grants
// (grants.ts). Access tokens are checked with API keys (auth/api-keys.ts).
import type { RequestOrigin } from '../audit/actor.js';
import type { AuditActor } from '../audit/record.js';
import type { Pool } from '../store/db.js';
import { approve, checkAuthorization, deny, type AuthorizationRequest } from './authorization.js';
import { OAuthClients } from './clients.js';
import { OAuthGrants } from './grants.js';
import { revokeRequest, tokenRequest } from './tokens.js';

export { OAuthError } from './tokens.js';
export type { AuthorizationRequest, AuthorizationCheck } from './authorization.js';

export class OAuthServer {
  readonly clients: OAuthClients;
  readonly grants: OAuthGrants;
  constructor(private readonly pool: Pool) {
    this.clients = new OAuthClients(pool);
    this.grants = new OAuthGrants(pool);
  }

  check(query: Record<string, unknown>) {
    return checkAuthorization(this.pool, query);
  }

  approve(r: AuthorizationRequest, who: { userId: string; teamId: string }, actor: AuditActor) {
    return approve(this.pool, r, who, actor);
  }

  deny(r: AuthorizationRequest) {
    return deny(r);
  }

  token(params: Record<string, unknown>, authorization: string | undefined) {
    return tokenRequest(this.pool, params, authorization);
  }

  revoke(params: Record<string, unknown>, authorization: string | undefined, origin: RequestOrigin) {
    return revokeRequest(this.pool, params, authorization, origin);
  }
}

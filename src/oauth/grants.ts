// A team's OAuth grants (GET /oauth/grants, DELETE /oauth/grants/:id in Resend's shapes). Revoking
// a grant stops every access and refresh token of it at once: each use of a token checks its grant.
import { notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import { oauthGrantList, oauthGrantRevoke, type OAuthGrantRow } from '../store/oauth.js';
import type { Page, PageQuery } from '../store/paginate.js';

export class OAuthGrants {
  constructor(private readonly db: Queryable) {}

  list(teamId: string, page: PageQuery): Promise<Page<OAuthGrantRow>> {
    return oauthGrantList(this.db, teamId, page);
  }

  /** Resend answers 404 for a grant that does not exist or is already revoked. */
  async revoke(teamId: string, id: string) {
    const g = isUuid(id) ? await oauthGrantRevoke(this.db, teamId, id, 'revoked_from_api') : undefined;
    if (!g) throw notFound('OAuth grant');
    return { object: 'oauth_grant' as const, ...g };
  }
}

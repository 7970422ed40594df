// A team's OAuth grants (GET /oauth/grants, DELETE /oauth/grants/:id in Resend's shapes). Revoking
// a grant stops every access and refresh token of it at once: each use of a token checks its grant.
import { auditRecord, inTx, type AuditActor } from '../audit/record.js';
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
  async revoke(teamId: string, id: string, actor: AuditActor) {
    const g =
      isUuid(id) &&
      (await inTx(this.db, async (tx) => {
        const g = await oauthGrantRevoke(tx, teamId, id, 'revoked_from_api');
        if (g)
          await auditRecord(tx, teamId, actor, {
            action: 'oauth_grant.revoked',
            target: { kind: 'oauth_grant', id },
            after: { reason: g.revoked_reason },
          });
        return g;
      }));
    if (!g) throw notFound('OAuth grant');
    const { team_id: _team, ...shown } = g;
    return { object: 'oauth_grant' as const, ...shown };
  }
}

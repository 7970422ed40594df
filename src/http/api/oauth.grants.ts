// GET /oauth/grants → {object: "list", has_more, data: [{id, client_id, scopes, created_at,
// revoked_at, revoked_reason, client: {name, logo_uri}}]} (revoked ones included, as Resend's);
// DELETE /oauth/grants/:id → {object: "oauth_grant", id, revoked_at, revoked_reason}: every token of
// the grant stops at once; 404 when there is no such grant or it is already revoked.
import { listBody, PageQuerySchema, parsePage } from '../pagination.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { IdParams } from './oauth.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/oauth/grants',
    { schema: { tags: ['OAuth'], summary: "List the team's OAuth grants", querystring: PageQuerySchema } },
    async (req) => listBody(await deps.oauth.grants.list(authOf(req).team_id, parsePage(req.query, false))),
  );

  app.delete(
    '/oauth/grants/:id',
    { schema: { tags: ['OAuth'], summary: 'Revoke an OAuth grant', params: IdParams } },
    async (req) => deps.oauth.grants.revoke(authOf(req).team_id, req.params.id, actorOf(req)),
  );
}

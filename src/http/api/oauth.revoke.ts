// POST /oauth/revoke (RFC 7009): a client hands back a refresh token, which revokes its grant and
// every token of it. Always 200 with an empty body for a token it cannot or need not revoke
// (RFC 7009 2.2); a client that fails to authenticate gets RFC 6749 5.2's invalid_client.
import type { ApiApp, ApiDeps } from '../types.js';
import { originOf } from '../../audit/actor.js';
import { acceptForms, bodyParams, noStore, oauthErrorAnswer, PUBLIC } from './oauth.schema.js';

export default function register(root: ApiApp, deps: ApiDeps): void {
  root.register(async (app: ApiApp) => {
    acceptForms(app);
    app.post(
      '/oauth/revoke',
      { config: PUBLIC, schema: { tags: ['OAuth'], summary: 'Revoke a refresh token and its grant' } },
      async (req, reply) => {
        noStore(reply);
        const authorization = req.headers.authorization;
        try {
          await deps.oauth.revoke(bodyParams(req.body), authorization, originOf(req));
          return reply.status(200).send();
        } catch (err) {
          return oauthErrorAnswer(reply, err, Boolean(authorization));
        }
      },
    );
  });
}

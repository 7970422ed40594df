// POST /oauth/token (RFC 6749 4.1.3 and 6): grant_type authorization_code (PKCE S256 mandatory) or
// refresh_token (rotated; a rotated one presented again revokes the grant). Form-encoded, as OAuth
// libraries send it, or JSON. → {access_token, token_type: "Bearer", expires_in, refresh_token,
// scope}; errors are RFC 6749 5.2's {error, error_description}, never Resend's shape.
import type { ApiApp, ApiDeps } from '../types.js';
import { acceptForms, bodyParams, noStore, oauthErrorAnswer, PUBLIC } from './oauth.schema.js';

export default function register(root: ApiApp, deps: ApiDeps): void {
  root.register(async (app: ApiApp) => {
    acceptForms(app);
    app.post(
      '/oauth/token',
      { config: PUBLIC, schema: { tags: ['OAuth'], summary: 'Exchange an authorization code or a refresh token' } },
      async (req, reply) => {
        noStore(reply);
        const authorization = req.headers.authorization;
        try {
          return await deps.oauth.token(bodyParams(req.body), authorization);
        } catch (err) {
          return oauthErrorAnswer(reply, err, Boolean(authorization));
        }
      },
    );
  });
}

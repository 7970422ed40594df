// The signed-in user's own security: TOTP enrolment and removal, recovery codes, password change,
// linked sign-in providers and open sessions.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { originOf } from '../../audit/actor.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { body, dash, noStore, PUBLIC, TAGS, routeOpts } from './common.js';

const Code = body({ code: Type.Optional(Type.Unknown()) });

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = routeOpts;
  // MFA enrolment stays reachable when the team requires MFA and the user has none yet.
  const me = (req: FastifyRequest) => dash(deps).sessions.require(req, { allowMfaSetup: true });

  app.get('/dashboard-api/account', opts("The signed-in user's security settings"), async (req) => {
    const { auth } = await me(req);
    return dash(deps).accounts.securityView(auth);
  });

  app.post('/dashboard-api/account/totp/setup', opts('Start TOTP enrolment'), async (req) => {
    const { auth } = await me(req);
    return dash(deps).secondFactor.totpBegin(auth);
  });

  app.post(
    '/dashboard-api/account/totp/enable',
    opts('Confirm TOTP enrolment with a code', { body: Code }),
    async (req) => {
      const { auth } = await me(req);
      return dash(deps).secondFactor.totpEnable(auth, req.body.code, originOf(req));
    },
  );

  app.post(
    '/dashboard-api/account/totp/disable',
    opts('Turn TOTP off (needs a current code)', { body: Code }),
    async (req) => {
      const { auth } = await me(req);
      await dash(deps).secondFactor.totpDisable(auth, req.body.code, originOf(req));
      return { totp_enabled: false };
    },
  );

  app.post(
    '/dashboard-api/account/recovery-codes',
    opts('New recovery codes (needs a current code)', { body: Code }),
    async (req) => {
      const { auth } = await me(req);
      return dash(deps).secondFactor.recoveryCodesRenew(auth, req.body.code);
    },
  );

  app.post(
    '/dashboard-api/account/password',
    opts('Change the password', {
      body: body({ current: Type.Optional(Type.Unknown()), password: Type.Optional(Type.Unknown()) }),
    }),
    async (req) => {
      const { auth } = await me(req);
      const b = req.body;
      await dash(deps).accounts.changePassword(auth, b.current, b.password);
      return { changed: true };
    },
  );
}

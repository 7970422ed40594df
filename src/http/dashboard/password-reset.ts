// Password reset: ask for a link (answers the same whether or not the account exists), check a
// link, set the new password (which signs the user out everywhere).

import { Type } from 'typebox';
import type { ApiApp, ApiDeps } from '../types.js';
import { RESET_TTL_WORDS } from '../../dashboard-auth/password-reset.js';
import { body, dash, noStore, PUBLIC, TAGS, routeOpts } from './common.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = routeOpts;

  app.post(
    '/dashboard-api/password/forgot',
    opts('Email a password-reset link', { body: body({ email: Type.Optional(Type.Unknown()) }) }),
    async (req) => {
      await dash(deps).reset.request(req.body.email, req.ip);
      return {
        sent: true,
        message: `If an account uses this address, a reset link is on its way. It works for ${RESET_TTL_WORDS}.`,
      };
    },
  );

  app.get(
    '/dashboard-api/password/reset/:token',
    opts('Is this reset link still valid?', { params: Type.Object({ token: Type.String() }) }),
    async (req) => {
      return { valid: await dash(deps).reset.tokenValid(req.params.token) };
    },
  );

  app.post(
    '/dashboard-api/password/reset',
    opts('Set a new password with a reset link', {
      body: body({ token: Type.Optional(Type.Unknown()), password: Type.Optional(Type.Unknown()) }),
    }),
    async (req) => {
      const b = req.body;
      await dash(deps).reset.reset(b.token, b.password);
      return { reset: true };
    },
  );
}

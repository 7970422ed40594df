// The operator's OAuth clients in the dashboard: listed, registered (the secret shown once) and
// deleted (its grants and every token go with it). The operator here is an owner of the
// installation's default team, the team the first sign-up created; the CLI does the same from a
// shell (`mailroom oauth-clients`). Clients serve every team: each grant names the team it is for.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { SessionAuth } from '../../dashboard-auth/sessions.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { body, dash, routeOpts } from './common.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  const operator = async (req: Parameters<ReturnType<typeof dash>['sessions']['require']>[0]): Promise<SessionAuth> => {
    const d = dash(deps);
    const { auth } = await d.sessions.require(req);
    const teams = await d.accounts.teamsOf(auth.userId);
    if (!teams.some((t) => t.is_default && t.role === 'owner'))
      throw new AppError('forbidden', 'Only owners of the default team manage OAuth clients.');
    return auth;
  };

  app.get('/dashboard-api/oauth-clients', routeOpts('OAuth clients'), async (req) => {
    await operator(req);
    return { object: 'list' as const, has_more: false, data: await deps.oauth.clients.list() };
  });

  app.post(
    '/dashboard-api/oauth-clients',
    routeOpts('Register an OAuth client', {
      body: body({
        name: Type.Optional(Type.Unknown()),
        redirect_uris: Type.Optional(Type.Unknown()),
        logo_uri: Type.Optional(Type.Unknown()),
        public: Type.Optional(Type.Unknown()),
      }),
    }),
    async (req, reply) => {
      await operator(req);
      return reply.status(201).send(await deps.oauth.clients.create(req.body));
    },
  );

  app.delete(
    '/dashboard-api/oauth-clients/:id',
    routeOpts('Delete an OAuth client', { params: Type.Object({ id: Type.String() }) }),
    async (req) => {
      await operator(req);
      if (!(await deps.oauth.clients.delete(req.params.id))) throw new AppError('not_found', 'OAuth client not found');
      return { object: 'oauth_client', id: req.params.id, deleted: true };
    },
  );
}

// A team member's dashboard sessions: listed (created, last seen, IP, user agent; never the token)
// and revocable, one or all. Everyone sees and ends their own; owners and admins those of members.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { originOf } from '../../audit/actor.js';
import type { ApiApp, ApiDeps } from '../types.js';
import { dash, routeOpts } from './common.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = routeOpts;
  const session = (req: FastifyRequest) => dash(deps).sessions.require(req);
  const Member = Type.Object({ userId: Type.String({ maxLength: 64 }) });

  app.get(
    '/dashboard-api/team/members/:userId/sessions',
    opts("A member's sessions in this team", { params: Member }),
    async (req) => {
      const { auth } = await session(req);
      return dash(deps).teams.memberSessions(auth, req.params.userId);
    },
  );

  app.delete(
    '/dashboard-api/team/members/:userId/sessions',
    opts("End all of a member's sessions in this team", { params: Member }),
    async (req) => {
      const { auth } = await session(req);
      const ended = await dash(deps).teams.revokeMemberSessions(auth, req.params.userId, null, originOf(req));
      return { sessions_ended: ended };
    },
  );

  app.delete(
    '/dashboard-api/team/members/:userId/sessions/:sessionId',
    opts("End one of a member's sessions", {
      params: Type.Object({ userId: Type.String({ maxLength: 64 }), sessionId: Type.String({ maxLength: 64 }) }),
    }),
    async (req) => {
      const { auth } = await session(req);
      const { userId, sessionId } = req.params;
      await dash(deps).teams.revokeMemberSessions(auth, userId, sessionId, originOf(req));
      return { deleted: true };
    },
  );
}

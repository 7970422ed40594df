// POST /api-keys → 201 {id, object: "list" (sic, as on Resend's wire), token}. Token shown once.
import { Type } from 'typebox';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

const Body = Type.Object(
  {
    name: Type.String({ maxLength: 50 }),
    permission: Type.Optional(Type.String()),
    domain_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/api-keys',
    { schema: { tags: ['API keys'], summary: 'Create an API key', body: Body } },
    async (req, reply) => {
      const { team_id } = authOf(req);
      const body = req.body;
      const key = await deps.apiKeys.createChecked(team_id, body, actorOf(req));
      return reply.status(201).send({ id: key.id, object: 'list', token: key.token });
    },
  );
}

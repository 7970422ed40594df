// PATCH /api-keys/:id {name?, expires_at?, allowed_networks?} → {object: "api_key", id}: rename,
// and (Mailroom extensions) change or lift (null) the key's expiry and allowed networks.
import { Type } from 'typebox';
import { notFound } from '../../errors.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.patch(
    '/api-keys/:id',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Rename an API key, or change its expiry and allowed networks',
        params: Type.Object({ id: Type.String() }),
        // expires_at and allowed_networks are checked by the service (422 naming the field, as on POST).
        body: Type.Object({ name: Type.Optional(Type.String({ maxLength: 50 })) }, { additionalProperties: true }),
      },
    },
    async (req) => {
      const { id } = req.params;
      if (!(await deps.apiKeys.update(authOf(req).team_id, id, req.body, actorOf(req)))) throw notFound('API key');
      return { object: 'api_key', id };
    },
  );
}

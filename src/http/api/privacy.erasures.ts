// POST /privacy/erasures {email} and GET /privacy/erasures/:id (Mailroom extension, issue 29):
// erase every trace of one address in the team, as a job (privacy/erase.job.ts). Full-access keys
// only (the hooks refuse sending_access). The request body is not kept in the request log: the
// address would outlive its erasure there. GET /privacy/erasures lists the team's newest (the
// dashboard's Privacy page); members' sessions see none of them (privacy.schema.ts).
import { Type } from 'typebox';
import { privacyRequestView, subjectAddress } from '../../privacy/service.js';
import { actorOf } from '../audit-actor.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { assertPrivacyReader } from './privacy.schema.js';

const tags = ['Privacy'];

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/privacy/erasures',
    {
      config: { unloggedBody: true },
      schema: {
        tags,
        summary: 'Erase an address (data-subject request)',
        body: Type.Object({ email: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: true }),
      },
    },
    async (req, reply) => {
      const email = subjectAddress(req.body?.email);
      const row = await deps.privacy.requests.start(authOf(req).team_id, 'erasure', email, actorOf(req));
      const view = privacyRequestView(row);
      return reply.status(202).send({ object: view.object, id: view.id, status: view.status });
    },
  );

  app.get(
    '/privacy/erasures',
    { schema: { tags, summary: "The team's newest erasures (at most 100)" } },
    async (req) => {
      const auth = authOf(req);
      assertPrivacyReader(auth);
      const rows = await deps.privacy.requests.list(auth.team_id, 'erasure');
      return { object: 'list' as const, has_more: false, data: rows.map(privacyRequestView) };
    },
  );

  app.get(
    '/privacy/erasures/:id',
    { schema: { tags, summary: 'Progress of an erasure', params: Type.Object({ id: Type.String() }) } },
    async (req) => {
      const auth = authOf(req);
      assertPrivacyReader(auth);
      return privacyRequestView(await deps.privacy.requests.get(auth.team_id, 'erasure', req.params.id));
    },
  );
}

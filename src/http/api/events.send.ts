// POST /events/send → 202 {object: "event", event} once the custom event is committed (resend-compat
// 8.1), queued in the same statement for the automations that listen for it. Idempotent by an
// optional Idempotency-Key, with the same semantics and table as POST /emails.
import { Type } from 'typebox';
import { customEventInputOf, customEventSend } from '../../custom-events/record.js';
import { withIdempotency } from '../../emails/idempotency.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';

const field = (description: string) => Type.Optional(Type.Unknown({ description }));
const Body = Type.Object(
  {
    event: field('the event name, e.g. "user.created"; names starting "resend:" are reserved'),
    contact_id: field('the contact the event is about (exactly one of contact_id or email)'),
    email: field(
      'the address the event is about (exactly one of contact_id or email); no contact is created by the event itself',
    ),
    payload: field(
      "an object, at most 32 levels deep and 64 KB as JSON; checked and coerced against the event definition's schema when there is one",
    ),
  },
  { additionalProperties: true },
);

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/events/send',
    {
      schema: {
        tags: ['Events'],
        summary: 'Send a custom event',
        description:
          'Answers 202 once the event is stored; the runs it starts or resumes (automations whose trigger or wait names it) follow a moment later, in the order events were recorded.',
        body: Body,
      },
    },
    async (req, reply) => {
      const teamId = authOf(req).team_id;
      const key = req.headers['idempotency-key'] as string | undefined;
      // Checked before the key hashes the body: a payload nested thousands deep is a 422 here.
      const input = customEventInputOf((req.body ?? {}) as Record<string, unknown>);
      const res = await withIdempotency(
        deps.pool,
        { teamId, method: 'POST', path: '/events/send' },
        key,
        req.body,
        async (complete) => {
          return { status: 202, body: await customEventSend(deps.pool, teamId, input, complete) };
        },
      );
      return reply.status(res.status).send(res.body);
    },
  );
}

// POST /emails → 200 {id} once the email, its first event and its delivery jobs are committed.
import { withIdempotency } from '../../emails/idempotency.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { SEND_BODY_LIMIT, SendEmailBody } from './emails.schema.js';

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/emails',
    {
      bodyLimit: SEND_BODY_LIMIT,
      config: { sending: true },
      schema: { tags: ['Emails'], summary: 'Send an email', body: SendEmailBody },
    },
    async (req, reply) => {
      const auth = authOf(req);
      const ctx = { teamId: auth.team_id, apiKeyId: auth.id, keyDomainId: auth.domain_id, source: 'api' as const };
      const key = req.headers['idempotency-key'] as string | undefined;
      const res = await withIdempotency(
        deps.pool,
        { teamId: auth.team_id, method: 'POST', path: '/emails' },
        key,
        req.body,
        async (complete) => {
          const email = await deps.sender.prepare(ctx, req.body, { allowAttachments: true });
          const body = { id: email.row.id };
          await deps.sender.commit(email, complete(200, body));
          return { status: 200, body };
        },
      );
      return reply.status(res.status).send(res.body);
    },
  );
}

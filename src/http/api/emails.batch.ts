// POST /emails/batch: up to 100 emails, no attachments, one statement for all of them.
// x-batch-validation: strict (default: any invalid email fails the request) or permissive (valid
// emails are sent, invalid ones reported as errors [{index, message}]).
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import { withIdempotency } from '../../emails/idempotency.js';
import type { AcceptedEmail } from '../../emails/views/records.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { SEND_BODY_LIMIT, SendEmailBody } from './emails.schema.js';

const MAX_BATCH = 100;

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.post(
    '/emails/batch',
    {
      bodyLimit: SEND_BODY_LIMIT,
      config: { sending: true },
      schema: {
        tags: ['Emails'],
        summary: 'Send up to 100 emails at once',
        body: Type.Unknown({ description: 'an array of send requests' }),
      },
    },
    async (req, reply) => {
      const auth = authOf(req);
      const ctx = { teamId: auth.team_id, apiKeyId: auth.id, keyDomainId: auth.domain_id, source: 'api' as const };
      const modeHeader = String(req.headers['x-batch-validation'] ?? 'strict').toLowerCase();
      if (modeHeader !== 'strict' && modeHeader !== 'permissive')
        throw new AppError('validation_error', 'The `x-batch-validation` header must be "strict" or "permissive".');
      const items = req.body;
      if (!Array.isArray(items)) throw new AppError('validation_error', 'The request body must be an array of emails.');
      if (items.length === 0) throw new AppError('validation_error', 'The batch must contain at least one email.');
      if (items.length > MAX_BATCH)
        throw new AppError(
          'validation_error',
          `A batch can contain at most ${MAX_BATCH} emails; this one has ${items.length}.`,
        );
      const key = req.headers['idempotency-key'] as string | undefined;
      const res = await withIdempotency(
        deps.pool,
        { teamId: auth.team_id, method: 'POST', path: '/emails/batch' },
        key,
        items,
        async (complete) => {
          const now = new Date();
          const accepted: AcceptedEmail[] = [];
          const errors: { index: number; message: string }[] = [];
          for (let i = 0; i < items.length; i++) {
            try {
              accepted.push(await deps.sender.prepare(ctx, items[i], { allowAttachments: false, now }));
            } catch (err) {
              if (!(err instanceof AppError) || modeHeader === 'strict') {
                if (err instanceof AppError && items.length > 1)
                  throw new AppError(err.code, `emails[${i}]: ${err.message}`);
                throw err;
              }
              errors.push({ index: i, message: err.message });
            }
          }
          const body =
            modeHeader === 'permissive'
              ? { data: accepted.map((e) => ({ id: e.row.id })), errors }
              : { data: accepted.map((e) => ({ id: e.row.id })) };
          await deps.sender.commitMany(accepted, complete(200, body));
          return { status: 200, body };
        },
      );
      return reply.status(res.status).send(res.body);
    },
  );
}

// POST /inboxes/:inbox/threads/:threadId/emails/:emailId/reply | forward: an answer sent through
// the one send path from the inbox's address and filed into the thread (inboxes/replies.ts).
import type { FastifyRequest } from 'fastify';
import { answer } from '../../inboxes/replies.js';
import { authOf, type ApiApp, type ApiDeps } from '../types.js';
import { EmailParams } from './inboxes.threads-emails.js';
import { ATTACHMENT_BODY_LIMIT, OpenBody, tags } from './inboxes.schema.js';

type Req = FastifyRequest & {
  params: { inbox: string; threadId: string; emailId: string };
  body?: Record<string, unknown>;
};

export default function register(app: ApiApp, deps: ApiDeps): void {
  const opts = (summary: string) => ({
    bodyLimit: ATTACHMENT_BODY_LIMIT,
    schema: { tags, summary, params: EmailParams, body: OpenBody },
  });
  const handle = (kind: 'reply' | 'forward') => async (req: Req) => {
    const auth = authOf(req);
    const ctx = { teamId: auth.team_id, apiKeyId: auth.id, keyDomainId: auth.domain_id, source: 'api' as const };
    const key = req.headers['idempotency-key'] as string | undefined;
    return answer({ pool: deps.pool, sender: deps.sender }, ctx, req.params, kind, req.body ?? {}, key);
  };
  app.post(
    '/inboxes/:inbox/threads/:threadId/emails/:emailId/reply',
    opts('Reply to an email of a thread'),
    handle('reply'),
  );
  app.post(
    '/inboxes/:inbox/threads/:threadId/emails/:emailId/forward',
    opts('Forward an email of a thread'),
    handle('forward'),
  );
}

// GET /webhooks/:id/events?limit&after → the endpoint's messages, newest first:
// {object: "list", has_more, data: [{id: "msg_...", type, created_at, status}]}.
// Mailroom extension: `status` (pending|attempting|success|failed) and `type` (an event type) narrow it.
import { invalidField } from '../../errors.js';
import { isWebhookEventType } from '../../events/types.js';
import type { WebhookMessageFilter } from '../../webhooks/message-log.js';
import { authOf, type ApiDeps, type ApiApp } from '../types.js';
import { AfterPageQuery, IdParams, parseAfterPage } from './webhooks.schema.js';

const STATUSES = ['pending', 'attempting', 'success', 'failed'];

function parseFilter(q: Record<string, unknown>): WebhookMessageFilter {
  const f: WebhookMessageFilter = {};
  const status = typeof q.status === 'string' ? q.status.trim() : '';
  if (status) {
    if (!STATUSES.includes(status)) throw invalidField('status', `must be one of ${STATUSES.join(', ')}.`);
    f.status = status;
  }
  const type = typeof q.type === 'string' ? q.type.trim() : '';
  if (type) {
    if (!isWebhookEventType(type))
      throw invalidField('type', 'must be an event type a webhook can receive (for example email.delivered).');
    f.type = type;
  }
  return f;
}

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/webhooks/:id/events',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'List the events sent to a webhook endpoint',
        params: IdParams,
        querystring: AfterPageQuery,
      },
    },
    async (req) => {
      return deps.webhookLog.messages(
        authOf(req).team_id,
        req.params.id,
        parseAfterPage(req.query, 'msg_'),
        parseFilter(req.query as Record<string, unknown>),
      );
    },
  );
}

// GET /webhooks/:id/events?limit&after → the endpoint's messages, newest first:
// {object: "list", has_more, data: [{id: "msg_...", type, created_at, status}]}.
import type { FastifyInstance } from 'fastify';
import { authOf, type ApiDeps } from '../types.js';
import { AfterPageQuery, IdParams, parseAfterPage } from './webhooks.schema.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  app.get('/webhooks/:id/events', { schema: { tags: ['Webhooks'], summary: 'List the events sent to a webhook endpoint', params: IdParams, querystring: AfterPageQuery } }, async (req) => {
    return deps.webhookLog.messages(authOf(req).team_id, (req.params as { id: string }).id, parseAfterPage(req.query as object, 'msg_'));
  });
}

// The webhook request log as the API shows it: an endpoint's messages (GET /webhooks/:id/events),
// one message with its payload, its attempts, and replay (the same msg_ id, a fresh schedule).
import { notFound } from '../errors.js';
import type { Pool } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  webhookAttemptList,
  webhookMessageFind,
  webhookMessageList,
  webhookMessageReplay,
  type WebhookMessageFilter,
} from '../store/webhook-messages.js';
import { webhookEndpointsWake } from '../store/webhook-outbox.js';
import { envelopeBody } from './payload.js';

export type { WebhookMessageFilter };
import type { Webhooks } from './service.js';

export class WebhookLog {
  constructor(
    private readonly pool: Pool,
    private readonly webhooks: Webhooks,
  ) {}

  async messages(teamId: string, webhookId: string, page: PageQuery, filter: WebhookMessageFilter = {}) {
    await this.webhooks.find(teamId, webhookId);
    const p = await webhookMessageList(this.pool, teamId, webhookId, page, filter);
    return { object: 'list' as const, has_more: p.has_more, data: p.data };
  }

  async message(teamId: string, webhookId: string, id: string) {
    await this.webhooks.find(teamId, webhookId);
    const m = await webhookMessageFind(this.pool, teamId, webhookId, id);
    if (!m) throw notFound('Webhook event');
    return {
      object: 'webhook_event' as const,
      id: m.id,
      type: m.type,
      created_at: m.created_at,
      status: m.status,
      next_attempt_at: m.next_attempt_at,
      attempts: m.attempts,
      payload: m.data && m.event_created_at ? JSON.parse(envelopeBody(m.type, m.event_created_at, m.data)) : null,
    };
  }

  async attempts(teamId: string, webhookId: string, id: string, page: PageQuery) {
    await this.webhooks.find(teamId, webhookId);
    if (!(await webhookMessageFind(this.pool, teamId, webhookId, id))) throw notFound('Webhook event');
    const p = await webhookAttemptList(this.pool, teamId, id, page);
    return { object: 'list' as const, has_more: p.has_more, data: p.data };
  }

  async replay(teamId: string, webhookId: string, id: string) {
    this.webhooks.assertEnabled(await this.webhooks.find(teamId, webhookId));
    if (!(await webhookMessageReplay(this.pool, teamId, webhookId, id))) throw notFound('Webhook event');
    await webhookEndpointsWake(this.pool, [webhookId]);
    return { object: 'webhook_event' as const, id };
  }
}

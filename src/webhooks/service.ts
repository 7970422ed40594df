// Webhook endpoints as a capability: create (secret generated, sealed at rest), read, list,
// update, delete, rotate the signing secret (the old one keeps signing for 24 h). Checks every
// endpoint URL against the SSRF policy when it is saved. Returns Resend's wire shapes.
import type { Config } from '../config/schema.js';
import { AppError, invalidField, missingField, notFound } from '../errors.js';
import type { Sealer } from '../lib/crypto.js';
import { isUuid, uuid } from '../lib/ids.js';
import { withTx, type Pool } from '../store/db.js';
import { auditRecord, type AuditActor } from '../audit/record.js';
import type { PageQuery } from '../store/paginate.js';
import { webhookCursorFastForwardIfIdle } from '../store/webhook-outbox.js';
import {
  webhookDelete,
  webhookFindById,
  webhookInsert,
  webhookList,
  webhookRotateSecret,
  webhookUpdate,
  type WebhookRow,
} from '../store/webhooks.js';
import { checkEndpointHost, endpointUrlProblem } from './endpoint-guard.js';
import { isWebhookEventType } from '../events/types.js';
import { newSigningSecret } from './signature.js';

export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface WebhookInput {
  endpoint?: unknown;
  events?: unknown;
  status?: unknown;
}

/** An endpoint without what may carry a credential (user info, query): for audit entries. */
function endpointShown(u: string): string {
  try {
    const url = new URL(u);
    return `${url.protocol}//${url.host}${url.pathname}${url.search ? '?…' : ''}`;
  } catch {
    return '[unreadable URL]';
  }
}

/** What an audit entry keeps of an endpoint: never its secret. */
const auditView = (w: WebhookRow) => ({ endpoint: endpointShown(w.endpoint), events: w.events, status: w.status });

export class Webhooks {
  constructor(
    private readonly pool: Pool,
    private readonly config: Config,
    private readonly sealer: Sealer,
  ) {}

  /** The endpoint of this team, or 404. */
  async find(teamId: string, id: string): Promise<WebhookRow> {
    const w = isUuid(id) ? await webhookFindById(this.pool, teamId, id) : undefined;
    if (!w) throw notFound('Webhook');
    return w;
  }

  private async endpoint(v: unknown): Promise<string> {
    if (typeof v !== 'string') throw invalidField('endpoint', 'must be a URL.');
    const problem = endpointUrlProblem(v);
    if (problem) throw invalidField('endpoint', `${problem}.`);
    try {
      await checkEndpointHost(new URL(v).hostname, this.config.allowPrivateNetworks);
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      const why =
        e.code === 'ENOTFOUND' || e.code?.startsWith('EAI_')
          ? `the host ${new URL(v).hostname} does not resolve`
          : e.message;
      throw invalidField('endpoint', `${why}.`);
    }
    return v;
  }

  private events(v: unknown): string[] {
    if (!Array.isArray(v) || v.length === 0) throw invalidField('events', 'must list at least one event type.');
    for (const t of v)
      if (typeof t !== 'string' || !isWebhookEventType(t))
        throw invalidField('events', `unknown event type ${JSON.stringify(t)}.`);
    return [...new Set(v as string[])];
  }

  async create(teamId: string, input: WebhookInput, actor: AuditActor) {
    if (input.endpoint === undefined) throw missingField('endpoint');
    if (input.events === undefined) throw missingField('events');
    const events = this.events(input.events);
    const endpoint = await this.endpoint(input.endpoint);
    const id = uuid();
    const secret = newSigningSecret();
    await webhookCursorFastForwardIfIdle(this.pool);
    await withTx(this.pool, async (tx) => {
      await webhookInsert(tx, { id, team_id: teamId, endpoint, events, secret_sealed: this.sealer.seal(secret) });
      await auditRecord(tx, teamId, actor, {
        action: 'webhook.created',
        target: { kind: 'webhook', id },
        after: { endpoint: endpointShown(endpoint), events, status: 'enabled' },
      });
    });
    return { object: 'webhook' as const, id, signing_secret: secret };
  }

  async list(teamId: string, page: PageQuery) {
    const p = await webhookList(this.pool, teamId, page);
    return { object: 'list' as const, has_more: p.has_more, data: p.data };
  }

  async get(teamId: string, id: string) {
    const w = await this.find(teamId, id);
    return {
      object: 'webhook' as const,
      id: w.id,
      created_at: w.created_at,
      status: w.status,
      endpoint: w.endpoint,
      events: w.events,
      signing_secret: this.sealer.open(w.secret_sealed),
    };
  }

  async update(teamId: string, id: string, input: WebhookInput, actor: AuditActor) {
    const before = await this.find(teamId, id);
    if (input.status !== undefined && input.status !== 'enabled' && input.status !== 'disabled')
      throw invalidField('status', 'must be "enabled" or "disabled".');
    const u = {
      endpoint: input.endpoint === undefined ? undefined : await this.endpoint(input.endpoint),
      events: input.events === undefined ? undefined : this.events(input.events),
      status: input.status as 'enabled' | 'disabled' | undefined,
    };
    if (u.status === 'enabled') await webhookCursorFastForwardIfIdle(this.pool);
    await withTx(this.pool, async (tx) => {
      if (!(await webhookUpdate(tx, teamId, id, u))) throw notFound('Webhook');
      const after = await webhookFindById(tx, teamId, id);
      await auditRecord(tx, teamId, actor, {
        action: 'webhook.updated',
        target: { kind: 'webhook', id },
        before: auditView(before),
        after: after && auditView(after),
      });
    });
    return { object: 'webhook' as const, id };
  }

  async remove(teamId: string, id: string, actor: AuditActor) {
    const before = isUuid(id) ? await webhookFindById(this.pool, teamId, id) : undefined;
    const deleted =
      before &&
      (await withTx(this.pool, async (tx) => {
        if (!(await webhookDelete(tx, teamId, id))) return false;
        await auditRecord(tx, teamId, actor, {
          action: 'webhook.deleted',
          target: { kind: 'webhook', id },
          before: auditView(before),
        });
        return true;
      }));
    if (!deleted) throw notFound('Webhook');
    return { object: 'webhook' as const, id, deleted: true };
  }

  async rotateSecret(teamId: string, id: string, actor: AuditActor) {
    const w = await this.find(teamId, id);
    const secret = newSigningSecret();
    const overlapUntil = new Date(Date.now() + ROTATION_OVERLAP_MS);
    await withTx(this.pool, async (tx) => {
      if (!(await webhookRotateSecret(tx, teamId, id, this.sealer.seal(secret), overlapUntil)))
        throw notFound('Webhook');
      // Which secret is never said: only that it changed, and until when the old one still signs.
      await auditRecord(tx, teamId, actor, {
        action: 'webhook.secret_rotated',
        target: { kind: 'webhook', id },
        after: { endpoint: endpointShown(w.endpoint), previous_signs_until: overlapUntil.toISOString() },
      });
    });
    return { object: 'webhook' as const, id, signing_secret: secret };
  }

  /** Refuses work on a disabled endpoint (replay). */
  assertEnabled(w: WebhookRow): void {
    if (w.status !== 'enabled')
      throw new AppError('validation_error', 'The webhook is disabled. Enable it before replaying events.');
  }
}

// THE send path. Every entry point (API single and batch, SMTP submission, later broadcasts and
// automations) ends here: check the sending domain, fetch `path` attachments, compose the MIME
// message, then commit the email, its first event, its delivery jobs (and its idempotency key)
// in one statement. Single sends share that statement with the other sends of the same
// event-loop turn (group commit: one WAL flush for many emails).
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { isUuid, uuid } from '../lib/ids.js';
import type { Domains } from '../domains/service.js';
import type { DomainRow } from '../store/domains.js';
import type { Pool, Queryable } from '../store/db.js';
import { emailsInsertAccepted, type AcceptedEmail, type IdempotencyCompletion } from '../store/emails.js';
import { DELIVERY_PRIORITY } from '../store/jobs.js';
import { Batcher } from '../queue/batcher.js';
import type { DeferredBodies } from './deferred.js';
import { resolveAttachments } from './attachments.js';
import { composeMessage, plainTextFor } from './compose.js';
import { makeEvent } from '../events/email-events.js';
import { topicFind } from '../store/topics.js';
import { formatAddress, shown } from './addresses.js';
import { pathAttachmentBudget, templateRefOf, validateSendRequest, type SendRequest } from './validate.js';
import type { TrackingSigner } from '../tracking/tokens.js';
import { distinctRecipients, type UnsubscribeSigner } from '../tracking/unsubscribe-tokens.js';
import { ComposeInsights, trackedHtml } from './compose-insights.js';
import type { SendGuard } from './send-guard.js';

export interface SendContext {
  teamId: string;
  apiKeyId: string | null;
  keyDomainId: string | null; // a sending_access key bound to one domain
  /**
   * 'broadcast': a broadcast's expansion (paced by its own job, so not counted against the team's
   * recipient rate); 'automation': an automation's send_email step (likewise not counted).
   */
  source: 'api' | 'smtp' | 'broadcast' | 'automation';
  /** The team whose data holds the email when it is not `teamId` (system mail: the hidden system team). */
  dataTeamId?: string;
}

/** A message whose MIME the client already built (SMTP): kept as is, minus what we own. */
export interface PrebuiltMessage {
  raw: Buffer;
  messageId: string;
}

/**
 * List mail (a broadcast, an automation step; a send with topic_id is list mail by itself): each
 * recipient's copy carries RFC 8058 one-click unsubscribe headers (made at delivery), and
 * `{{{RESEND_UNSUBSCRIBE_URL}}}` in html/text becomes the recipient's preference-page link.
 */
export interface ListMail {
  /** List-Id header value (RFC 2919), e.g. `"Weekly news" <news.3f2a.example.com>`: printable ASCII */
  listId?: string;
  /** the email id to use, for a caller that renders unsubscribeUrl(id) into the body itself */
  id?: string;
  /** the broadcast this email is one recipient's copy of (emails.broadcast_id, `broadcast_id` in its events) */
  broadcastId?: string;
  /** the automation whose send_email step sends this email (emails.automation_id, `automation_id` in its events) */
  automationId?: string;
}

const UNSUBSCRIBE_TAG = /\{\{\{\s*RESEND_UNSUBSCRIBE_URL\s*\}\}\}/g;
const HTML_ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

type Pending = { email: AcceptedEmail; completion?: IdempotencyCompletion };

const DOMAIN_CACHE_MS = 5_000;

/** What composing needs of the sending domain: its name (Message-ID) and its tracking settings. */
export type TrackingDomain = Pick<DomainRow, 'name' | 'open_tracking' | 'click_tracking'>;

/** The team's topic named by `topic_id` on a send, or a 422 naming the field. */
export async function sendTopic(db: Pool, teamId: string, topicId: string | undefined): Promise<string | null> {
  if (topicId === undefined) return null;
  const t = isUuid(topicId) ? await topicFind(db, teamId, topicId.toLowerCase()) : undefined;
  if (!t) throw new AppError('validation_error', `Invalid \`topic_id\` field: no topic has the id ${shown(topicId.slice(0, 100))}.`);
  return t.id;
}

/** A template rendered for a send (templates/ sits above emails/: the composition root supplies it). */
export interface RenderedTemplateFields { from: string | null; subject: string | null; replyTo: string[] | null; html: string; text: string | null }
export type TemplateRender = (teamId: string, ref: string, variables: unknown) => Promise<RenderedTemplateFields>;

const absent = (v: unknown) => v === undefined || v === null || v === '';

/** Counts an email's recipients against the team's recipient rate; throws 429 beyond it. */
export type RecipientBudget = (teamId: string, recipients: number) => Promise<void>;

export class EmailSender {
  private readonly batcher: Batcher<Pending, void>;
  /** Set by the composition root where requests are served (api, smtp roles). */
  recipientBudget?: RecipientBudget;
  /** Set by the composition root: the reputation guard's check of the sending domain (send-guard.ts). */
  guard?: SendGuard;
  /** Set by the composition root: renders `template: {id, variables}` on a send. */
  templates?: TemplateRender;
  /** Set by the composition root: renders the bodies of emails that keep none (a broadcast's; emails/deferred.ts). */
  bodies?: DeferredBodies;
  private readonly domainCache = new Map<string, { row: DomainRow; until: number }>();
  /** The compose findings of stored emails: run by the delivery job and GET /emails/:id/insights, never here. */
  readonly insights: ComposeInsights;

  constructor(private readonly pool: Pool, private readonly domains: Domains, private readonly config: Config, private readonly tracking?: TrackingSigner,
    private readonly unsubscribe?: UnsubscribeSigner) {
    this.insights = new ComposeInsights(config, tracking, unsubscribe);
    this.batcher = new Batcher<Pending, void>(async (items) => {
      await emailsInsertAccepted(this.pool, items.map((i) => i.email), items.flatMap((i) => (i.completion ? [i.completion] : [])));
      return items.map(() => undefined);
    });
  }

  /** The verified sending domain for this From domain, checked against the key's binding. */
  async sendingDomain(ctx: SendContext, name: string): Promise<DomainRow> {
    const cacheKey = `${ctx.teamId}:${name}`;
    const now = Date.now();
    const hit = this.domainCache.get(cacheKey);
    let row = hit && hit.until > now ? hit.row : undefined;
    if (!row) {
      row = (await this.domains.sendingDomain(ctx.teamId, name))?.row;
      if (!row) throw new AppError('domain_not_verified', `The \`${name}\` domain is not verified. Please, add and verify your domain.`);
      if (this.domainCache.size > 10_000) this.domainCache.clear();
      this.domainCache.set(cacheKey, { row, until: now + DOMAIN_CACHE_MS });
    }
    if (ctx.keyDomainId && ctx.keyDomainId !== row.id) {
      throw new AppError('forbidden', `This API key is restricted to another domain and cannot send from \`${name}\`.`);
    }
    return row;
  }

  /** Validates a request body and turns it into an email ready to commit. */
  async prepare(ctx: SendContext, body: unknown, opts: { allowAttachments: boolean; now?: Date; prebuilt?: PrebuiltMessage }): Promise<AcceptedEmail> {
    const now = opts.now ?? new Date();
    const req = validateSendRequest(await this.withTemplate(ctx, body), { allowAttachments: opts.allowAttachments, now });
    return this.prepareValidated(ctx, req, now, opts.prebuilt);
  }

  /**
   * A body with `template` becomes the body the template stands for: its published version's
   * html and text, and its from, subject and reply_to unless the request gives them. The result
   * is then validated like any other send (one set of rules for the rendered subject too).
   */
  private async withTemplate(ctx: SendContext, body: unknown): Promise<unknown> {
    const t = templateRefOf(body);
    if (!t) return body;
    if (!this.templates) throw new AppError('validation_error', 'Invalid `template` field: templates are not available in this process.');
    const r = await this.templates(ctx.teamId, t.ref, t.variables);
    const b = body as Record<string, unknown>;
    const from = absent(b.from) ? r.from : b.from;
    const subject = absent(b.subject) ? r.subject : b.subject;
    if (absent(from)) throw new AppError('missing_required_field', 'Missing `from` field: the template has no default sender, so the request must give one.');
    if (absent(subject)) throw new AppError('missing_required_field', 'Missing `subject` field: the template has no default subject, so the request must give one.');
    const { template: _template, ...rest } = b;
    return { ...rest, from, subject, reply_to: absent(b.reply_to) ? r.replyTo ?? undefined : b.reply_to, html: r.html, ...(r.text === null ? {} : { text: r.text }) };
  }

  /**
   * The preference page (GET) and one-click unsubscribe (POST) link of an email's recipient:
   * `recipient` is its place among the email's distinct recipients (0 for a one-recipient email,
   * as broadcasts and automations send). Signed, no database row, never expires.
   */
  unsubscribeUrl(emailId: string, recipient = 0): string {
    if (!this.unsubscribe) throw new Error('unsubscribeUrl: no unsubscribe signer configured');
    return this.unsubscribe.url(emailId, recipient);
  }

  async prepareValidated(ctx: SendContext, req: SendRequest, now: Date, prebuilt?: PrebuiltMessage, list?: ListMail): Promise<AcceptedEmail> {
    const domain = await this.sendingDomain(ctx, req.from.domain);
    await this.guard?.(ctx.teamId, domain, ctx.source === 'broadcast' || ctx.source === 'automation'); // list mail: held while the domain is paused
    const topicId = await sendTopic(this.pool, ctx.teamId, req.topicId); // 422 for a topic the team does not have
    // Recipients, not requests, are what a send costs receivers: counted before any work.
    if (ctx.source === 'api' || ctx.source === 'smtp') await this.recipientBudget?.(ctx.teamId, req.to.length + req.cc.length + req.bcc.length);
    const id = list?.id ?? uuid(); // before composing: tracking links carry it
    const listMail = Boolean(topicId) || list !== undefined;
    if (list?.listId !== undefined && !/^[\x20-\x7e]{1,500}$/.test(list.listId)) throw new Error('prepareValidated: List-Id must be printable ASCII');
    const ownUnsubscribeUrl = listMail && this.unsubscribe ? this.unsubscribe.url(id, 0) : undefined;
    if (listMail) req = this.withUnsubscribeUrl(req, ownUnsubscribeUrl);
    let composed = prebuilt;
    if (!composed) {
      const attachments = req.attachments.some((a) => a.path)
        ? await resolveAttachments(req.attachments, { allowPrivateNetworks: this.config.allowPrivateNetworks, maxBytes: pathAttachmentBudget(req), timeoutMs: 15_000 })
        : req.attachments;
      const tracked = this.tracked(id, req, domain, ownUnsubscribeUrl);
      composed = await composeMessage({ ...req, ...tracked, attachments }, { messageIdDomain: domain.name, date: now });
    }
    const scheduled = Boolean(req.scheduledAt);
    const headers = Object.entries(req.headers).map(([name, value]) => ({ name, value }));
    const owner = ctx.dataTeamId ?? ctx.teamId;
    const row: AcceptedEmail['row'] = {
      id, team_id: owner, domain_id: domain.id, api_key_id: ctx.apiKeyId, source: ctx.source, message_id: composed.messageId,
      from_header: formatAddress(req.from), to_addrs: req.to.map((a) => a.address), cc_addrs: req.cc.map((a) => a.address),
      bcc_addrs: req.bcc.map((a) => a.address), reply_to: req.replyTo.map((a) => a.address), subject: req.subject,
      html: req.html ?? null, text_body: req.text ?? null, headers: headers.length ? headers : null, tags: req.tags,
      scheduled_at: req.scheduledAt?.toISOString() ?? null, last_event: scheduled ? 'scheduled' : 'sent', created_at: now.toISOString(), topic_id: topicId,
      list_unsubscribe: listMail, list_id: list?.listId ?? null, broadcast_id: list?.broadcastId ?? null, automation_id: list?.automationId ?? null,
      // Not analyzed yet: the insight rules run off the request path (emails/compose-insights.ts).
      insights: null,
    };
    const runAt = (req.scheduledAt ?? now).toISOString();
    const byDomain = new Map<string, Set<string>>();
    for (const a of [...req.to, ...req.cc, ...req.bcc]) {
      const set = byDomain.get(a.domain) ?? new Set<string>();
      set.add(a.address.toLowerCase());
      byDomain.set(a.domain, set);
    }
    const jobs = [...byDomain].map(([d, rcpts]) => ({
      payload: { email_id: id, team_id: owner, domain: d, recipients: [...rcpts], ...(scheduled ? { scheduled: true as const } : {}) }, run_at: runAt, region: domain.region,
      priority: ctx.source === 'broadcast' ? DELIVERY_PRIORITY.broadcast : ctx.source === 'automation' ? DELIVERY_PRIORITY.automation : DELIVERY_PRIORITY.transactional,
    }));
    const event = makeEvent({ ...row, created_at: now }, scheduled ? 'email.scheduled' : 'email.sent', { at: now });
    return { row, raw: composed.raw, event, jobs };
  }

  /**
   * The body of an email that keeps none of its own (a broadcast's email, rendered at delivery and
   * on read: broadcasts/bodies.ts): the same unsubscribe link, tracking and MIME prepareValidated
   * gives a list email, for the email's stored id, Message-ID and date. html and text are what
   * GET /emails/:id shows (as sent, before tracking); raw is the message to sign and send.
   */
  async composeStored(req: SendRequest, e: { id: string; messageId: string; date: Date }, domain: TrackingDomain): Promise<{ html: string | null; text: string | null; raw: Buffer }> {
    const ownUnsubscribeUrl = this.unsubscribe ? this.unsubscribe.url(e.id, 0) : undefined;
    req = this.withUnsubscribeUrl(req, ownUnsubscribeUrl);
    const composed = await composeMessage({ ...req, ...this.tracked(e.id, req, domain, ownUnsubscribeUrl) },
      { messageIdDomain: domain.name, date: e.date, messageId: e.messageId });
    return { html: req.html ?? null, text: req.text ?? null, raw: composed.raw };
  }

  /**
   * The HTML recipients get when the domain tracks opens or clicks, with links and pixel on
   * MAILROOM_PUBLIC_URL (Resend uses a verified tracking subdomain instead). The text part is
   * derived from the original HTML, so its links are not rewritten. The stored html stays as sent.
   */
  private tracked(id: string, req: SendRequest, domain: TrackingDomain, ownUnsubscribeUrl?: string): Partial<SendRequest> {
    const html = trackedHtml({ id, html: req.html, headers: req.headers, domain, publicUrl: this.config.publicUrl, sign: this.tracking, ownUnsubscribeUrl });
    return html === undefined ? {} : { text: plainTextFor(req), html };
  }

  /**
   * `{{{RESEND_UNSUBSCRIBE_URL}}}` in a list email's html (escaped) and text becomes the recipient's
   * link. The body is one for all recipients, so an email that uses it must have one recipient:
   * otherwise 422 (send one email per recipient) rather than one person's link shown to others.
   */
  private withUnsubscribeUrl(req: SendRequest, url: string | undefined): SendRequest {
    const uses = (s: string | undefined) => s !== undefined && new RegExp(UNSUBSCRIBE_TAG.source).test(s);
    if (!url || !(uses(req.html) || uses(req.text))) return req;
    if (distinctRecipients(req.to.map((a) => a.address), req.cc.map((a) => a.address), req.bcc.map((a) => a.address)).length !== 1) {
      throw new AppError('validation_error', '`{{{RESEND_UNSUBSCRIBE_URL}}}` is a link for one recipient: an email sent for a topic that uses it must have exactly one recipient (send one email per recipient, e.g. with /emails/batch).');
    }
    const html = url.replace(/[&<>"']/g, (c) => HTML_ESC[c]);
    return {
      ...req,
      ...(req.html !== undefined ? { html: req.html.replace(UNSUBSCRIBE_TAG, () => html) } : {}),
      ...(req.text !== undefined ? { text: req.text.replace(UNSUBSCRIBE_TAG, () => url) } : {}),
    };
  }

  /** Commits one email (sharing the statement with concurrent sends). */
  async commit(email: AcceptedEmail, completion?: IdempotencyCompletion): Promise<void> {
    await this.batcher.add({ email, completion });
  }

  /**
   * Commits emails in the caller's transaction (one statement): a broadcast commits a page of its
   * recipients' emails together with the advance of its cursor.
   */
  async commitIn(tx: Queryable, emails: AcceptedEmail[]): Promise<void> {
    await emailsInsertAccepted(tx, emails);
  }

  /** Commits a batch in its own statement: all or nothing. */
  async commitMany(emails: AcceptedEmail[], completion?: IdempotencyCompletion): Promise<void> {
    await emailsInsertAccepted(this.pool, emails, completion ? [completion] : []);
  }
}

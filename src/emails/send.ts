// Composing an email for THE way in (accept.ts): a request body (or a template it names) is
// validated, checked by the acceptor's one check step, its `path` attachments fetched, its
// unsubscribe link and tracking added and its MIME composed; the acceptor then makes its row,
// first event and delivery jobs and commits them. API single and batch, SMTP submission,
// automations, system mail and broadcast test sends come this way; a broadcast's expansion uses
// the acceptor's page form, its bodies composed later by composeStored (broadcasts/bodies.ts).
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { uuid } from '../lib/ids.js';
import type { DomainRow } from '../store/domains.js';
import type { Queryable } from '../store/db.js';
import type { AcceptedEmail, IdempotencyCompletion } from '../store/emails.js';
import { resolveAttachments } from './attachments.js';
import { composeMessage, plainTextFor } from './compose.js';
import { pathAttachmentBudget, templateRefOf, validateSendRequest, type SendRequest } from './validate.js';
import type { TrackingSigner } from '../tracking/tokens.js';
import { distinctRecipients, type UnsubscribeSigner } from '../tracking/unsubscribe-tokens.js';
import { trackedHtml } from '../tracking/tracked-html.js';
import type { EmailAcceptor, SendContext } from './accept.js';

export type { SendContext, RecipientBudget } from './accept.js';

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

/** What composing needs of the sending domain: its name (Message-ID) and its tracking settings. */
export type TrackingDomain = Pick<DomainRow, 'name' | 'open_tracking' | 'click_tracking'>;

/** A template rendered for a send (templates/ sits above emails/: the composition root supplies it). */
export interface RenderedTemplateFields {
  from: string | null;
  subject: string | null;
  replyTo: string[] | null;
  html: string;
  text: string | null;
}
export type TemplateRender = (teamId: string, ref: string, variables: unknown) => Promise<RenderedTemplateFields>;

const absent = (v: unknown) => v === undefined || v === null || v === '';

export interface SenderOptions {
  tracking?: TrackingSigner;
  unsubscribe?: UnsubscribeSigner;
  /** renders `template: {id, variables}` on a send (templates/ sits above emails/); none: refused */
  templates?: TemplateRender;
}

export class EmailSender {
  private readonly tracking?: TrackingSigner;
  private readonly unsubscribe?: UnsubscribeSigner;
  private readonly templates?: TemplateRender;

  constructor(
    private readonly accept: EmailAcceptor,
    private readonly config: Config,
    opts: SenderOptions = {},
  ) {
    this.tracking = opts.tracking;
    this.unsubscribe = opts.unsubscribe;
    this.templates = opts.templates;
  }

  /** The verified sending domain for this From domain, checked against the key's binding (the acceptor's). */
  sendingDomain(ctx: SendContext, name: string): Promise<DomainRow> {
    return this.accept.sendingDomain(ctx, name);
  }

  /** Validates a request body and turns it into an email ready to commit. */
  async prepare(
    ctx: SendContext,
    body: unknown,
    opts: { allowAttachments: boolean; now?: Date; prebuilt?: PrebuiltMessage },
  ): Promise<AcceptedEmail> {
    const now = opts.now ?? new Date();
    const req = validateSendRequest(await this.withTemplate(ctx, body), {
      allowAttachments: opts.allowAttachments,
      now,
    });
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
    if (!this.templates)
      throw new AppError('validation_error', 'Invalid `template` field: templates are not available in this process.');
    const r = await this.templates(ctx.teamId, t.ref, t.variables);
    const b = body as Record<string, unknown>;
    const from = absent(b.from) ? r.from : b.from;
    const subject = absent(b.subject) ? r.subject : b.subject;
    if (absent(from))
      throw new AppError(
        'missing_required_field',
        'Missing `from` field: the template has no default sender, so the request must give one.',
      );
    if (absent(subject))
      throw new AppError(
        'missing_required_field',
        'Missing `subject` field: the template has no default subject, so the request must give one.',
      );
    const { template: _template, ...rest } = b;
    return {
      ...rest,
      from,
      subject,
      reply_to: absent(b.reply_to) ? (r.replyTo ?? undefined) : b.reply_to,
      html: r.html,
      ...(r.text === null ? {} : { text: r.text }),
    };
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

  /** A validated request through the check step, composed (unless prebuilt), as the acceptor's one-email form. */
  async prepareValidated(
    ctx: SendContext,
    req: SendRequest,
    now: Date,
    prebuilt?: PrebuiltMessage,
    list?: ListMail,
  ): Promise<AcceptedEmail> {
    const checked = await this.accept.check(ctx, {
      fromDomain: req.from.domain,
      topicId: req.topicId,
      recipients: req.to.length + req.cc.length + req.bcc.length,
    });
    const { domain, topicId } = checked;
    const id = list?.id ?? uuid(); // before composing: tracking links carry it
    const listMail = Boolean(topicId) || list !== undefined;
    if (list?.listId !== undefined && !/^[\x20-\x7e]{1,500}$/.test(list.listId))
      throw new Error('prepareValidated: List-Id must be printable ASCII');
    const ownUnsubscribeUrl = listMail && this.unsubscribe ? this.unsubscribe.url(id, 0) : undefined;
    if (listMail) req = this.withUnsubscribeUrl(req, ownUnsubscribeUrl);
    let composed = prebuilt;
    if (!composed) {
      const attachments = req.attachments.some((a) => a.path)
        ? await resolveAttachments(req.attachments, {
            allowPrivateNetworks: this.config.allowPrivateNetworks,
            maxBytes: pathAttachmentBudget(req),
            timeoutMs: 15_000,
          })
        : req.attachments;
      const tracked = this.tracked(id, req, domain, ownUnsubscribeUrl);
      composed = await composeMessage({ ...req, ...tracked, attachments }, { messageIdDomain: domain.name, date: now });
    }
    return this.accept.email(
      ctx,
      checked,
      {
        id,
        from: req.from,
        to: req.to,
        cc: req.cc,
        bcc: req.bcc,
        replyTo: req.replyTo,
        subject: req.subject,
        html: req.html ?? null,
        text: req.text ?? null,
        headers: Object.entries(req.headers).map(([name, value]) => ({ name, value })),
        tags: req.tags,
        scheduledAt: req.scheduledAt ?? null,
        messageId: composed.messageId,
        raw: composed.raw,
        listMail,
        listId: list?.listId ?? null,
        broadcastId: list?.broadcastId ?? null,
        automationId: list?.automationId ?? null,
      },
      now,
    );
  }

  /**
   * The body of an email that keeps none of its own (a broadcast's email, rendered at delivery and
   * on read: broadcasts/bodies.ts): the same unsubscribe link, tracking and MIME prepareValidated
   * gives a list email, for the email's stored id, Message-ID and date. html and text are what
   * GET /emails/:id shows (as sent, before tracking); raw is the message to sign and send.
   */
  async composeStored(
    req: SendRequest,
    e: { id: string; messageId: string; date: Date },
    domain: TrackingDomain,
  ): Promise<{ html: string | null; text: string | null; raw: Buffer }> {
    const ownUnsubscribeUrl = this.unsubscribe ? this.unsubscribe.url(e.id, 0) : undefined;
    req = this.withUnsubscribeUrl(req, ownUnsubscribeUrl);
    const composed = await composeMessage(
      { ...req, ...this.tracked(e.id, req, domain, ownUnsubscribeUrl) },
      { messageIdDomain: domain.name, date: e.date, messageId: e.messageId },
    );
    return { html: req.html ?? null, text: req.text ?? null, raw: composed.raw };
  }

  /**
   * The HTML recipients get when the domain tracks opens or clicks, with links and pixel on
   * MAILROOM_PUBLIC_URL (Resend uses a verified tracking subdomain instead). The text part is
   * derived from the original HTML, so its links are not rewritten. The stored html stays as sent.
   */
  private tracked(
    id: string,
    req: SendRequest,
    domain: TrackingDomain,
    ownUnsubscribeUrl?: string,
  ): Partial<SendRequest> {
    const html = trackedHtml({
      id,
      html: req.html,
      headers: req.headers,
      domain,
      publicUrl: this.config.publicUrl,
      sign: this.tracking,
      ownUnsubscribeUrl,
    });
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
    if (
      distinctRecipients(
        req.to.map((a) => a.address),
        req.cc.map((a) => a.address),
        req.bcc.map((a) => a.address),
      ).length !== 1
    ) {
      throw new AppError(
        'validation_error',
        '`{{{RESEND_UNSUBSCRIBE_URL}}}` is a link for one recipient: an email sent for a topic that uses it must have exactly one recipient (send one email per recipient, e.g. with /emails/batch).',
      );
    }
    const html = url.replace(/[&<>"']/g, (c) => HTML_ESC[c]);
    return {
      ...req,
      ...(req.html !== undefined ? { html: req.html.replace(UNSUBSCRIBE_TAG, () => html) } : {}),
      ...(req.text !== undefined ? { text: req.text.replace(UNSUBSCRIBE_TAG, () => url) } : {}),
    };
  }

  /** Commits one email (sharing the statement with concurrent sends): the acceptor's. */
  commit(email: AcceptedEmail, completion?: IdempotencyCompletion): Promise<void> {
    return this.accept.commit(email, completion);
  }

  /** Commits emails in the caller's transaction (an automation step's, with the step): the acceptor's. */
  commitIn(tx: Queryable, emails: AcceptedEmail[], completion?: IdempotencyCompletion): Promise<void> {
    return this.accept.commitIn(tx, emails, completion);
  }

  /** Commits a batch in its own statement, all or nothing: the acceptor's. */
  commitMany(emails: AcceptedEmail[], completion?: IdempotencyCompletion): Promise<void> {
    return this.accept.commitMany(emails, completion);
  }
}

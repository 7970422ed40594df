// THE way in for every email. One check step (`check`: the verified sending domain, the key's
// domain binding, the reputation guard's pause, the topic, the team's recipient rate) and one
// event builder (`acceptedEvent`: the `email.sent` / `email.scheduled` event) serve its two forms:
// one email (`email`: API single and batch, SMTP, automations, system mail and broadcast tests, each
// composed first by send.ts) and a page of emails (`page`: a broadcast's expansion, whose bodies are
// rendered at delivery, delivery/deferred.ts). Both commit through store/emails.ts, the one file that
// inserts into `emails`. Single commits share a statement within an event-loop turn (group commit).
import { AppError } from '../errors.js';
import { isUuid, uuid } from '../lib/ids.js';
import type { Domains } from '../domains/service.js';
import type { DomainRow } from '../store/domains.js';
import type { Pool, Queryable } from '../store/db.js';
import {
  emailsInsertAccepted,
  emailsInsertPage,
  type AcceptedEmail,
  type DeliverPayload,
  type EmailPage,
  type EventInsert,
  type IdempotencyCompletion,
} from '../store/emails.js';
import { DELIVERY_PRIORITY } from '../store/jobs.js';
import { topicFind } from '../store/topics.js';
import { Batcher } from '../queue/batcher.js';
import { makeEvent, type EmailForEvent } from '../events/email-events.js';
import { formatAddress, shown, type Address } from '../mime/addresses.js';
import type { SendGuard } from './send-guard.js';
import { SingleFlight } from '../lib/single-flight.js';

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

/** Counts an email's recipients against the team's recipient rate; throws 429 beyond it. */
export type RecipientBudget = (teamId: string, recipients: number) => Promise<void>;

export interface AcceptorOptions {
  /** the reputation guard's check of the sending domain (send-guard.ts); none: nothing is paused */
  guard?: SendGuard;
  /** the team's recipient rate, where requests are served (api, smtp roles); none: not counted */
  recipientBudget?: RecipientBudget;
  /**
   * Told of the emails commit/commitMany committed (API, batch, SMTP), after the commit: inboxes
   * file mail sent from an inbox address (inboxes/filing.ts fileSent). Its failure never fails a send.
   */
  committed?: (emails: AcceptedEmail[]) => Promise<void>;
}

/** What the check step found: the sending domain and the send's topic. */
export interface Checked {
  domain: DomainRow;
  topicId: string | null;
}

/** One email as accepted, composed by the caller: what its row, event and delivery jobs are made of. */
export interface EmailDraft {
  id: string;
  from: Address;
  to: Address[];
  cc: Address[];
  bcc: Address[];
  replyTo: Address[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: { name: string; value: string }[];
  tags: { name: string; value: string }[];
  scheduledAt: Date | null;
  messageId: string;
  raw: Buffer;
  listMail: boolean;
  listId: string | null;
  broadcastId: string | null;
  automationId: string | null;
}

/** What a page's emails share (a broadcast's). */
export interface PageHead {
  from: Address;
  replyTo: string[];
  headers: { name: string; value: string }[];
  topicId: string | null;
  listId: string;
  broadcastId: string;
}

/** One copy of a page: one recipient, its subject, and the values its body is rendered from later. */
export interface PageCopy {
  to: Address;
  subject: string;
  personalization: unknown;
}

type Pending = { email: AcceptedEmail; completion?: IdempotencyCompletion };

const DOMAIN_CACHE_MS = 5_000;

/** The email's first event, at its acceptance (`now`, its created_at): `email.scheduled` when it waits for its time, else `email.sent`. */
export function acceptedEvent(e: EmailForEvent, scheduled: boolean, now: Date): EventInsert {
  return makeEvent(e, scheduled ? 'email.scheduled' : 'email.sent', { at: now });
}

const isListSource = (ctx: SendContext) => ctx.source === 'broadcast' || ctx.source === 'automation';

export class EmailAcceptor {
  private readonly batcher: Batcher<Pending, void>;
  private readonly domainCache = new Map<string, { row: DomainRow; until: number }>();
  /** lookups in flight, shared by the sends that wait on the same team and name */
  private readonly domainLookups = new SingleFlight<DomainRow | undefined>();

  constructor(
    private readonly pool: Pool,
    private readonly domains: Domains,
    private readonly opts: AcceptorOptions = {},
  ) {
    this.batcher = new Batcher<Pending, void>(async (items) => {
      await emailsInsertAccepted(
        this.pool,
        items.map((i) => i.email),
        items.flatMap((i) => (i.completion ? [i.completion] : [])),
      );
      await this.told(items.map((i) => i.email));
      return items.map(() => undefined);
    });
  }

  /**
   * The verified sending domain for this From domain, checked against the key's binding. Looked up
   * once per team and name every DOMAIN_CACHE_MS, and once for all the sends waiting on it: when
   * the cached row expired, every send in flight (64 at a time in the benchmark) looked it up
   * again, ~15 lookups of the same row each time (issue 27).
   */
  async sendingDomain(ctx: SendContext, name: string): Promise<DomainRow> {
    const cacheKey = `${ctx.teamId}:${name}`;
    const now = Date.now();
    const hit = this.domainCache.get(cacheKey);
    let row = hit && hit.until > now ? hit.row : undefined;
    if (!row) {
      row = await this.domainLookups.run(cacheKey, () =>
        this.domains.sendingDomain(ctx.teamId, name).then((d) => d?.row),
      );
      if (!row)
        throw new AppError(
          'domain_not_verified',
          `The \`${name}\` domain is not verified. Please, add and verify your domain.`,
        );
      if (this.domainCache.size > 10_000) this.domainCache.clear();
      this.domainCache.set(cacheKey, { row, until: now + DOMAIN_CACHE_MS });
    }
    if (ctx.keyDomainId && ctx.keyDomainId !== row.id) {
      throw new AppError('forbidden', `This API key is restricted to another domain and cannot send from \`${name}\`.`);
    }
    return row;
  }

  /**
   * THE check step, for one email or a page of them: the sending domain (verified, the key's own),
   * the guard (list mail is held while the domain is paused), the topic (422 for one the team does
   * not have), and, for API and SMTP sends, the recipients against the team's rate: before any work.
   */
  async check(
    ctx: SendContext,
    a: { fromDomain: string; topicId?: string | null; recipients: number },
  ): Promise<Checked> {
    const domain = await this.sendingDomain(ctx, a.fromDomain);
    await this.opts.guard?.(ctx.teamId, domain, isListSource(ctx));
    const topicId = await this.topic(ctx.teamId, a.topicId ?? undefined);
    if (ctx.source === 'api' || ctx.source === 'smtp') await this.opts.recipientBudget?.(ctx.teamId, a.recipients);
    return { domain, topicId };
  }

  /** The team's topic named by `topic_id` on a send, or a 422 naming the field. */
  private async topic(teamId: string, topicId: string | undefined): Promise<string | null> {
    if (topicId === undefined) return null;
    const t = isUuid(topicId) ? await topicFind(this.pool, teamId, topicId.toLowerCase()) : undefined;
    if (!t)
      throw new AppError(
        'validation_error',
        `Invalid \`topic_id\` field: no topic has the id ${shown(topicId.slice(0, 100))}.`,
      );
    return t.id;
  }

  /** The one-email form: a checked, composed email as its row, first event and delivery jobs. */
  email(ctx: SendContext, c: Checked, d: EmailDraft, now: Date): AcceptedEmail {
    const scheduled = d.scheduledAt !== null;
    const owner = ctx.dataTeamId ?? ctx.teamId;
    const createdAt = now.toISOString(); // once: the row's created_at and (unscheduled) its jobs' run_at
    const row: AcceptedEmail['row'] = {
      id: d.id,
      team_id: owner,
      domain_id: c.domain.id,
      api_key_id: ctx.apiKeyId,
      source: ctx.source,
      message_id: d.messageId,
      from_header: formatAddress(d.from),
      to_addrs: d.to.map((a) => a.address),
      cc_addrs: d.cc.map((a) => a.address),
      bcc_addrs: d.bcc.map((a) => a.address),
      reply_to: d.replyTo.map((a) => a.address),
      subject: d.subject,
      html: d.html,
      text_body: d.text,
      headers: d.headers.length ? d.headers : null,
      tags: d.tags,
      scheduled_at: d.scheduledAt?.toISOString() ?? null,
      last_event: scheduled ? 'scheduled' : 'sent',
      created_at: createdAt,
      topic_id: c.topicId,
      list_unsubscribe: d.listMail,
      list_id: d.listId,
      broadcast_id: d.broadcastId,
      automation_id: d.automationId,
      // Not analyzed yet: the insight rules run off the request path (insights/compose-insights.ts).
      insights: null,
    };
    const runAt = d.scheduledAt ? d.scheduledAt.toISOString() : createdAt;
    // One delivery job per recipient domain with its distinct (lowercased) recipients, in the order
    // they first appear in to, cc, bcc. Loops and assignment, not spreads: per email on the accept path.
    const byDomain = new Map<string, Set<string>>();
    for (const list of [d.to, d.cc, d.bcc])
      for (const a of list) {
        let set = byDomain.get(a.domain);
        if (!set) byDomain.set(a.domain, (set = new Set<string>()));
        set.add(a.address.toLowerCase());
      }
    const priority =
      ctx.source === 'broadcast'
        ? DELIVERY_PRIORITY.broadcast
        : ctx.source === 'automation'
          ? DELIVERY_PRIORITY.automation
          : DELIVERY_PRIORITY.transactional;
    const jobs: AcceptedEmail['jobs'] = [];
    for (const [rd, rcpts] of byDomain) {
      const payload: DeliverPayload = { email_id: d.id, team_id: owner, domain: rd, recipients: [...rcpts] };
      if (scheduled) payload.scheduled = true;
      jobs.push({ payload, run_at: runAt, region: c.domain.region, priority });
    }
    // The event is made of the row's fields but with created_at as the Date: given the row's ISO
    // string, isoOf parsed it back into a Date only to format it again (~3 µs per email).
    const forEvent: EmailForEvent = {
      id: row.id,
      team_id: owner,
      created_at: now,
      from_header: row.from_header,
      to_addrs: row.to_addrs,
      subject: row.subject,
      message_id: row.message_id,
      tags: row.tags,
      headers: row.headers,
      broadcast_id: row.broadcast_id,
      automation_id: row.automation_id,
    };
    return { row, raw: d.raw, event: acceptedEvent(forEvent, scheduled, now), jobs };
  }

  /**
   * The page form (a broadcast's expansion): the check step once for the page, then per copy only
   * an id, a Message-ID, the subject, the values its body is rendered from, the `email.sent` event
   * and a share of a delivery job. `copies` is called with the checked domain (a deferred body keeps
   * the domain's tracking settings). Bodies are rendered at delivery and on read, not here: storing
   * each recipient's html, text and MIME cost ~1.5 ms per email.
   */
  async page(ctx: SendContext, head: PageHead, copies: (domain: DomainRow) => PageCopy[]): Promise<EmailPage> {
    const c = await this.check(ctx, { fromDomain: head.from.domain, topicId: head.topicId, recipients: 0 });
    const now = new Date();
    const from = formatAddress(head.from);
    const headers = head.headers.length ? head.headers : null;
    const p: EmailPage = {
      team_id: ctx.teamId,
      domain_id: c.domain.id,
      api_key_id: ctx.apiKeyId,
      from_header: from,
      reply_to: head.replyTo,
      headers,
      topic_id: c.topicId,
      list_id: head.listId,
      broadcast_id: head.broadcastId,
      created_at: now.toISOString(),
      region: c.domain.region,
      ids: [],
      message_ids: [],
      addresses: [],
      recipient_domains: [],
      subjects: [],
      personalizations: [],
      events: [],
    };
    for (const copy of copies(c.domain)) {
      const id = uuid();
      const messageId = `<${uuid()}@${c.domain.name}>`;
      p.ids.push(id);
      p.message_ids.push(messageId);
      p.addresses.push(copy.to.address);
      p.recipient_domains.push(copy.to.domain);
      p.subjects.push(copy.subject);
      p.personalizations.push(copy.personalization);
      p.events.push(
        acceptedEvent(
          {
            id,
            team_id: ctx.teamId,
            created_at: now,
            from_header: from,
            to_addrs: [copy.to.address],
            subject: copy.subject,
            message_id: messageId,
            tags: [],
            headers,
            broadcast_id: head.broadcastId,
          },
          false,
          now,
        ),
      );
    }
    return p;
  }

  /** Commits one email (sharing the statement with concurrent sends). */
  async commit(email: AcceptedEmail, completion?: IdempotencyCompletion): Promise<void> {
    await this.batcher.add({ email, completion });
  }

  /** Commits a batch in its own statement: all or nothing. */
  async commitMany(emails: AcceptedEmail[], completion?: IdempotencyCompletion): Promise<void> {
    await emailsInsertAccepted(this.pool, emails, completion ? [completion] : []);
    await this.told(emails);
  }

  private async told(emails: AcceptedEmail[]): Promise<void> {
    if (this.opts.committed && emails.length) await this.opts.committed(emails).catch(() => undefined);
  }

  /**
   * Commits emails in the caller's transaction (an automation step's email with the step's
   * completion; an inbox reply with its filing into the thread and its idempotency key).
   */
  async commitIn(tx: Queryable, emails: AcceptedEmail[], completion?: IdempotencyCompletion): Promise<void> {
    await emailsInsertAccepted(tx, emails, completion ? [completion] : []);
  }

  /** Commits a page in the caller's transaction (a broadcast's, with the advance of its cursor). */
  async commitPage(tx: Queryable, page: EmailPage): Promise<void> {
    await emailsInsertPage(tx, page);
  }
}

// Broadcasts (/broadcasts, resend-compat 7.5, plus Mailroom's pause, resume, test send and live
// counts). Statuses: draft → scheduled (send with a future scheduled_at) | queued (send now) →
// sending (the expansion job has committed a page) → sent (every page expanded); cancel makes a
// broadcast that sent nothing a draft again (as in Resend: the SDK's statuses are draft, queued,
// sent), and one that sent some canceled (Mailroom's: sending or paused ones); paused (on request,
// or by the automatic pause) → resume goes back to queued. Only drafts are edited; drafts and
// scheduled broadcasts are deleted (the schedule canceled with it). `send` only returns once the
// status and the expansion job are committed together; the job does the rest (expand.job.ts).
import { auditRecord, type AuditActor } from '../audit/record.js';
import { AppError, invalidField, notFound } from '../errors.js';
import type { Config } from '../config/schema.js';
import type { EmailSender, SendContext } from '../emails/send.js';
import { parseScheduledAt } from '../emails/schedule.js';
import { isUuid, uuid } from '../lib/ids.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  broadcastCancelToDraft,
  broadcastDeleteDraft,
  broadcastEmailsCancelQueued,
  broadcastFind,
  broadcastInsert,
  broadcastList,
  broadcastMove,
  broadcastUpdateDraft,
  type BroadcastRow,
  type BroadcastStatus,
} from '../store/broadcasts.js';
import {
  BOUNCE_TYPES,
  broadcastClickedLinks,
  broadcastCounts,
  broadcastRecipientsPage,
  RECIPIENT_TYPES,
  type RecipientType,
} from '../store/broadcast-stats.js';
import { broadcastJobWake, deliverJobsHoldForBroadcast, deliverJobsReleaseForBroadcast } from '../store/jobs.js';
import { contactFind } from '../store/contacts.js';
import { segmentFind, type SegmentRow } from '../store/segments.js';
import { topicsFindMany } from '../store/topics.js';
import { segmentAudienceCount } from '../store/segment-contacts.js';
import { contactPropertiesFind } from '../store/contact-properties.js';
import { checkSendable, contentOf } from './input.js';
import { withTemplate } from './from-template.js';
import { BroadcastMessage } from './message.js';

type Body = Record<string, unknown>;
export interface Caller {
  teamId: string;
  apiKeyId: string | null;
  keyDomainId: string | null;
  /** named in the audit log when the broadcast is sent */
  actor: AuditActor;
}

/** What an audit entry keeps of a broadcast. */
const auditView = (b: { name?: string | null; status?: string }, extra: Record<string, unknown> = {}) => ({
  name: b.name ?? null,
  status: b.status,
  ...extra,
});
const ok = (id: string) => ({ object: 'broadcast' as const, id });

const CANCELABLE: BroadcastStatus[] = ['scheduled', 'queued', 'sending', 'paused'];

async function find(pool: Pool, teamId: string, id: string): Promise<BroadcastRow> {
  const b = isUuid(id) ? await broadcastFind(pool, teamId, id.toLowerCase()) : undefined;
  if (!b) throw notFound('Broadcast');
  return b;
}

/** The status a refused move found (not the one read before it: twenty calls racing each read `sending`). */
async function statusNow(tx: Queryable, teamId: string, id: string): Promise<string> {
  return (await broadcastFind(tx, teamId, id))?.status ?? 'deleted';
}

// The audience count reads at most this many contacts (a full scan of them with the exclusions;
// the segment counts' cap is 10,000, too low for a send's confirmation to name).
const AUDIENCE_COUNT_CAP = 10_000_000;

const notDraft = (b: BroadcastRow, action: string) =>
  new AppError('validation_error', `Only draft broadcasts can be ${action}: this broadcast is ${b.status}.`);

export class Broadcasts {
  constructor(
    private readonly pool: Pool,
    private readonly sender: EmailSender,
    private readonly config: Config,
  ) {}

  /** The wire shape of GET /broadcasts/:id: Resend's fields in its order, then Mailroom's progress. */
  async view(b: BroadcastRow) {
    const c = await broadcastCounts(this.pool, b.id);
    return {
      object: 'broadcast' as const,
      id: b.id,
      name: b.name,
      audience_id: b.segment_id,
      segment_id: b.segment_id,
      from: b.from_header,
      subject: b.subject,
      reply_to: b.reply_to,
      preview_text: b.preview_text,
      status: b.status,
      created_at: b.created_at,
      scheduled_at: b.scheduled_at,
      sent_at: b.sent_at,
      topic_id: b.topic_id,
      html: b.html,
      text: b.text_body,
      // Mailroom's own: live progress from the broadcast's emails and their events, and why it paused.
      stats: {
        recipients: b.recipients,
        queued: c.queued,
        sent: c.emails,
        delivered: c.delivered,
        bounced: c.bounced,
        hard_bounced: c.hard_bounced,
        complained: c.complained,
        opened: c.opened,
        clicked: c.clicked,
        unsubscribed: c.unsubscribed,
        suppressed: c.suppressed + b.skipped_suppressed,
        failed: c.failed,
        canceled: c.canceled,
        skipped: { unsubscribed: b.skipped_unsubscribed, topic: b.skipped_topic, suppressed: b.skipped_suppressed },
      },
      completed_at: b.completed_at,
      paused_at: b.paused_at,
      pause_reason: b.pause_reason,
      document: b.document ?? null, // the visual editor's document (null: raw HTML)
    };
  }

  async get(teamId: string, id: string) {
    return this.view(await find(this.pool, teamId, id));
  }

  list(teamId: string, page: PageQuery, withStats = false) {
    return broadcastList(this.pool, teamId, page, withStats);
  }

  async create(caller: Caller, body: Body) {
    const c = await contentOf(this.pool, caller.teamId, await withTemplate(this.pool, caller.teamId, body));
    const send = body.send;
    if (send !== undefined && send !== null && typeof send !== 'boolean')
      throw invalidField('send', 'must be true or false.');
    if (body.scheduled_at !== undefined && body.scheduled_at !== null && send !== true)
      throw invalidField('scheduled_at', 'can only be given with `send: true`.');
    const at = send === true ? this.scheduleOf(body.scheduled_at) : undefined;
    if (send === true) await this.checkDomain(caller, c.from_header!);
    const id = uuid();
    await withTx(this.pool, async (tx) => {
      await broadcastInsert(tx, caller.teamId, id, c, caller.apiKeyId);
      if (send !== true) return;
      await this.start(tx, caller.teamId, id, at ?? null);
      await auditRecord(tx, caller.teamId, caller.actor, {
        action: 'broadcast.sent',
        target: { kind: 'broadcast', id },
        after: auditView({ name: c.name, status: at ? 'scheduled' : 'queued' }, { scheduled_at: at ?? null }),
      });
    });
    return ok(id); // Resend answers {object, id}
  }

  async update(teamId: string, id: string, body: Body) {
    const b = await find(this.pool, teamId, id);
    if (b.status !== 'draft') throw notDraft(b, 'edited');
    const c = await contentOf(this.pool, teamId, body, b);
    const before = await broadcastUpdateDraft(this.pool, teamId, b.id, c);
    if (before === undefined) throw notFound('Broadcast');
    if (before !== 'draft') throw notDraft({ ...b, status: before }, 'edited');
    return ok(b.id);
  }

  async remove(teamId: string, id: string) {
    const b = await find(this.pool, teamId, id);
    const before = await broadcastDeleteDraft(this.pool, teamId, b.id);
    if (before === undefined) throw notFound('Broadcast');
    if (before !== 'draft' && before !== 'scheduled')
      throw new AppError(
        'validation_error',
        `Only draft or scheduled broadcasts can be deleted: this broadcast is ${before} (cancel it first if it is sending).`,
      );
    return { ...ok(b.id), deleted: true };
  }

  async duplicate(caller: Caller, id: string) {
    const b = await find(this.pool, caller.teamId, id);
    const copy = uuid();
    await broadcastInsert(this.pool, caller.teamId, copy, b, caller.apiKeyId);
    return ok(copy);
  }

  /** POST /broadcasts/:id/send: a draft becomes queued (or scheduled) with its job, at once. */
  /**
   * Who the broadcast would reach if sent now: its segment's contacts, less those the fan-out skips
   * (unsubscribed, out of its topic, suppressed), counted in SQL by the fan-out's own rules. The
   * dashboard's review step shows it before anything leaves.
   */
  async audience(teamId: string, id: string) {
    const b = await find(this.pool, teamId, id);
    const seg = b.segment_id ? await segmentFind(this.pool, teamId, b.segment_id) : undefined;
    return {
      object: 'broadcast_audience' as const,
      broadcast_id: b.id,
      ...(await this.counted(teamId, seg, b.topic_id)),
    };
  }

  /**
   * GET /broadcasts/audience?segment_id=&topic_id= (Mailroom): the same count for a segment and topic
   * not saved yet, so the composer shows the audience size as they are chosen.
   */
  async audienceOf(teamId: string, q: { segment_id?: string; topic_id?: string }) {
    const segId = q.segment_id || undefined;
    const topicId = q.topic_id || undefined;
    if (segId !== undefined && !isUuid(segId)) throw invalidField('segment_id', 'must be a segment id.');
    if (topicId !== undefined && !isUuid(topicId)) throw invalidField('topic_id', 'must be a topic id.');
    const seg = segId ? await segmentFind(this.pool, teamId, segId.toLowerCase()) : undefined;
    if (segId && !seg) throw notFound('Segment');
    if (topicId && !(await topicsFindMany(this.pool, teamId, [topicId.toLowerCase()])).length) throw notFound('Topic');
    return {
      object: 'broadcast_audience' as const,
      broadcast_id: null,
      ...(await this.counted(teamId, seg, topicId ? topicId.toLowerCase() : null)),
    };
  }

  private async counted(teamId: string, seg: SegmentRow | undefined, topicId: string | null) {
    const n = seg
      ? await segmentAudienceCount(this.pool, teamId, seg, topicId, AUDIENCE_COUNT_CAP)
      : { contacts: 0, unsubscribed: 0, topic: 0, suppressed: 0, recipients: 0, capped: false };
    return {
      segment_id: seg ? seg.id : null,
      topic_id: topicId,
      contacts: n.contacts,
      skipped: { unsubscribed: n.unsubscribed, topic: n.topic, suppressed: n.suppressed },
      recipients: n.recipients,
      capped: n.capped,
    };
  }

  async send(caller: Caller, id: string, body: Body) {
    const b = await find(this.pool, caller.teamId, id);
    if (b.status !== 'draft')
      throw new AppError('validation_error', `Only draft broadcasts can be sent: this broadcast is ${b.status}.`);
    checkSendable(b);
    const at = this.scheduleOf(body.scheduled_at);
    await this.checkDomain(caller, b.from_header!);
    await withTx(this.pool, async (tx) => {
      await this.start(tx, caller.teamId, b.id, at ?? null);
      await auditRecord(tx, caller.teamId, caller.actor, {
        action: 'broadcast.sent',
        target: { kind: 'broadcast', id: b.id },
        before: auditView(b),
        after: auditView(b, { status: at ? 'scheduled' : 'queued', scheduled_at: at ?? null }),
      });
    });
    return { id: b.id };
  }

  async cancel(teamId: string, id: string, actor: AuditActor) {
    const b = await find(this.pool, teamId, id);
    const audit = (tx: Queryable, status: string) =>
      auditRecord(tx, teamId, actor, {
        action: 'broadcast.canceled',
        target: { kind: 'broadcast', id: b.id },
        before: auditView(b),
        after: auditView(b, { status }),
      });
    await withTx(this.pool, async (tx) => {
      if (await broadcastCancelToDraft(tx, teamId, b.id)) return audit(tx, 'draft');
      const moved = await broadcastMove(tx, teamId, b.id, CANCELABLE, 'canceled');
      if (!moved)
        throw new AppError(
          'validation_error',
          `Only queued or scheduled broadcasts can be canceled (Mailroom: also sending or paused ones): this broadcast is ${await statusNow(tx, teamId, b.id)}.`,
        );
      // Locks in one order (issue 24): the broadcast's row (the move), its emails, its jobs. Its
      // emails not yet handed over to a delivery are canceled; held deliveries are let go to find that out.
      await broadcastEmailsCancelQueued(tx, teamId, b.id);
      await deliverJobsReleaseForBroadcast(tx, b.id);
      await audit(tx, 'canceled');
    });
    return ok(b.id);
  }

  async pause(teamId: string, id: string, actor: AuditActor) {
    const b = await find(this.pool, teamId, id);
    await withTx(this.pool, async (tx) => {
      const moved = await broadcastMove(tx, teamId, b.id, ['scheduled', 'queued', 'sending'], 'paused', {
        pauseReason: 'paused on request',
      });
      if (!moved)
        throw new AppError(
          'validation_error',
          `Only scheduled, queued or sending broadcasts can be paused: this broadcast is ${await statusNow(tx, teamId, b.id)}.`,
        );
      await deliverJobsHoldForBroadcast(tx, b.id);
      await auditRecord(tx, teamId, actor, {
        action: 'broadcast.paused',
        target: { kind: 'broadcast', id: b.id },
        before: auditView(b),
        after: auditView(b, { status: 'paused' }),
      });
    });
    return { ...ok(b.id), status: 'paused' as const };
  }

  async resume(teamId: string, id: string) {
    const b = await find(this.pool, teamId, id);
    // A broadcast paused before its scheduled time goes back to waiting for it.
    const at =
      b.scheduled_at && !b.sent_at ? new Date(b.scheduled_at.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')) : null;
    const wait = at && at.getTime() > Date.now() ? at : null;
    const status = wait ? ('scheduled' as const) : ('queued' as const);
    await withTx(this.pool, async (tx) => {
      const moved = await broadcastMove(tx, teamId, b.id, ['paused'], status);
      if (!moved)
        throw new AppError(
          'validation_error',
          `Only paused broadcasts can be resumed: this broadcast is ${await statusNow(tx, teamId, b.id)}.`,
        );
      await deliverJobsReleaseForBroadcast(tx, b.id);
      await broadcastJobWake(tx, b.id, wait);
    });
    return { ...ok(b.id), status };
  }

  /**
   * POST /broadcasts/:id/test {to}: the message as a recipient would get it (personalized as the
   * contact with that address when there is one), through the send path, not counted in the
   * broadcast (no broadcast_id). Any status.
   */
  async test(caller: Caller, id: string, body: Body) {
    const b = await find(this.pool, caller.teamId, id);
    checkSendable(b);
    const to = typeof body.to === 'string' ? [body.to] : body.to;
    if (!Array.isArray(to) || !to.length || to.length > 50 || !to.every((x) => typeof x === 'string')) {
      throw invalidField('to', 'must be an email address or an array of 1 to 50 email addresses.');
    }
    const defs = await contactPropertiesFind(this.pool, caller.teamId);
    const msg = new BroadcastMessage(
      b,
      Object.fromEntries(
        defs.map((d) => [d.key, (d as { fallback_value?: string | number | null }).fallback_value ?? null]),
      ),
    );
    const ctx: SendContext = {
      teamId: caller.teamId,
      apiKeyId: caller.apiKeyId,
      keyDomainId: caller.keyDomainId,
      source: 'api',
    };
    const now = new Date();
    const emails = [];
    for (const address of to as string[]) {
      const contact = await contactFind(this.pool, caller.teamId, { email: address.trim().toLowerCase() });
      const req = msg.requestFor(contact ?? { email: address.trim() }, { test: true });
      emails.push(await this.sender.prepareValidated(ctx, req, now, undefined, { listId: msg.listId }));
    }
    await this.sender.commitMany(emails);
    return {
      object: 'broadcast' as const,
      id: b.id,
      data: emails.map((e) => ({ id: e.row.id, to: e.row.to_addrs[0] })),
    };
  }

  async recipients(teamId: string, id: string, q: Record<string, unknown>, page: PageQuery) {
    const b = await find(this.pool, teamId, id);
    const type = q.type ?? 'sent';
    if (typeof type !== 'string' || !(RECIPIENT_TYPES as readonly string[]).includes(type))
      throw invalidField('type', `must be one of ${RECIPIENT_TYPES.join(', ')}.`);
    const bounceType = q.bounce_type;
    if (
      bounceType !== undefined &&
      (type !== 'bounced' ||
        typeof bounceType !== 'string' ||
        !(BOUNCE_TYPES as readonly string[]).includes(bounceType))
    ) {
      throw invalidField('bounce_type', `is for type=bounced only, one of ${BOUNCE_TYPES.join(', ')}.`);
    }
    const email = typeof q.email === 'string' && q.email.trim() ? q.email.trim().slice(0, 320) : undefined;
    return broadcastRecipientsPage(
      this.pool,
      teamId,
      b.id,
      { type: type as RecipientType, email, bounceType: bounceType as string | undefined },
      page,
    );
  }

  async clickedLinks(teamId: string, id: string, page: PageQuery) {
    const b = await find(this.pool, teamId, id);
    return broadcastClickedLinks(this.pool, b.id, page);
  }

  private scheduleOf(v: unknown): Date | undefined {
    if (v === undefined || v === null) return undefined;
    return parseScheduledAt(v as string, new Date());
  }

  /** A broadcast is refused at send time, not page by page, when its From domain cannot send. */
  private async checkDomain(caller: Caller, from: string): Promise<void> {
    const domain = from
      .slice(from.lastIndexOf('@') + 1)
      .replace(/>.*$/, '')
      .trim()
      .toLowerCase();
    await this.sender.sendingDomain(
      { teamId: caller.teamId, apiKeyId: caller.apiKeyId, keyDomainId: caller.keyDomainId, source: 'api' },
      domain,
    );
  }

  /** draft → queued | scheduled, with its expansion job, in the caller's transaction. */
  private async start(tx: Queryable, teamId: string, id: string, at: Date | null): Promise<void> {
    const moved = await broadcastMove(tx, teamId, id, ['draft'], at ? 'scheduled' : 'queued', { scheduledAt: at });
    if (!moved)
      throw new AppError('validation_error', 'Only draft broadcasts can be sent: this broadcast was sent meanwhile.');
    await broadcastJobWake(tx, id, at);
  }
}

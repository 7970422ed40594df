// Received mail for receiving-enabled domains, as named steps: authenticate (SPF, DKIM, DMARC,
// ARC) once, then per team: store the raw message once, parse it as a stream with each
// attachment stored on its own (the raw copy, the parse and the authentication read a spooled
// file in one pass, Spool.streams), and commit the email, its attachments and its email.received
// event together. Small messages from concurrent sessions share one statement (group commit).
// Attachments that may be DMARC aggregate reports are also kept in memory (up to 10 MB each) and
// handed to dmarc-ingest.ts once the message is stored. Mail for an inbox address is then filed
// into its threads (inboxes/filing.ts).
import type { Resolver } from 'node:dns/promises';
import { type Readable, Transform } from 'node:stream';
import type { Config } from '../config/schema.js';
import type { Logger } from '../lib/log.js';
import { uuid } from '../lib/ids.js';
import { Batcher } from '../queue/batcher.js';
import type { BlobChunk } from '../store/blobs.js';
import type { Pool } from '../store/db.js';
import { receivedEmailsInsert, type ReceivedAttachmentRow, type ReceivedInsert } from '../store/received-emails.js';
import { authenticateInbound, type Authentication } from './authenticate.js';
import { ChunkWriter } from './chunk-writer.js';
import { ingestDmarcReports } from './dmarc-ingest.js';
import { MAX_ATTACHMENT_BYTES, mayBeReport, REPORT_HEAD_BYTES, reportHeadPlausible } from './dmarc-report.js';
import { cachedResolve, type ResolveFn } from './dns-cache.js';
import { parseInbound } from './parse.js';
import { fileReceived } from '../inboxes/filing.js';
import type { Spool } from './spool.js';

export interface InboundEnvelope {
  mailFrom: string; // '' = null sender
  clientIp: string;
  helo: string;
  tls: boolean;
}

export interface TeamDelivery {
  teamId: string;
  domainId: string;
  recipients: string[];
}

/** The email.received webhook data (resend-compat.md 9.3): no body, no headers, no tags. */
export function receivedEventData(email: ReceivedInsert['email'], attachments: ReceivedAttachmentRow[]) {
  return {
    email_id: email.id,
    created_at: new Date(email.created_at).toISOString(),
    from: email.from_addr,
    to: email.to_addrs,
    bcc: email.bcc_addrs,
    cc: email.cc_addrs,
    received_for: email.received_for,
    message_id: email.message_id,
    subject: email.subject,
    attachments: attachments.map((a) => ({
      id: a.id,
      filename: a.filename,
      content_type: a.content_type,
      content_disposition: a.content_disposition,
      content_id: a.content_id,
    })),
  };
}

export class InboundReceiver {
  /** resolves whether the write's email reached an inbox of its team */
  private readonly batch: Batcher<{ items: ReceivedInsert[]; chunks: BlobChunk[] }, boolean>;
  private readonly resolve: ResolveFn;

  constructor(private readonly deps: { pool: Pool; config: Config; resolver: Resolver; log?: Logger }) {
    this.resolve = cachedResolve(deps.resolver, deps.config.mxDnsCacheSeconds * 1000);
    this.batch = new Batcher<{ items: ReceivedInsert[]; chunks: BlobChunk[] }, boolean>(async (writes) => {
      const inInbox = await receivedEmailsInsert(
        deps.pool,
        writes.flatMap((w) => w.items),
        writes.flatMap((w) => w.chunks),
      );
      return writes.map((w) => w.items.some((i) => inInbox.has(i.email.id)));
    });
  }

  /**
   * Authenticates the message once and stores it for each team; returns the received emails' ids.
   * Authentication (DNS lookups) runs while the message is parsed and written (it never
   * rejects: a failure is the verdict processing_failed). The first team's raw copy, its parse
   * and the authentication read the spool in one pass.
   */
  async receive(spool: Spool, env: InboundEnvelope, teams: TeamDelivery[], signal?: AbortSignal): Promise<string[]> {
    signal?.throwIfAborted();
    const [authIn, ...firstIn] = spool.streams(3);
    const auth = authenticateInbound(spool.buffer() ?? authIn, {
      ip: env.clientIp,
      helo: env.helo,
      sender: env.mailFrom,
      mta: this.deps.config.mxHost,
      resolve: this.resolve,
    }).finally(() => authIn.destroy()); // read to its end, or let go of so the other readers go on
    const ids: string[] = [];
    try {
      for (const [i, t] of teams.entries())
        ids.push(await this.store(spool, env, t, auth, i === 0 ? firstIn : spool.streams(2), signal));
    } finally {
      for (const s of firstIn) s.destroy();
    }
    return ids;
  }

  /**
   * Stores the message for one team from `inputs` (two streams over it: one for the raw copy,
   * one for the parser, read at the same time); returns the received email's id. `auth` may
   * still be running: the raw message and its parts are written meanwhile, and the rows wait for it.
   * `signal` aborted (the client's connection was cut: it was never told 250 and will send again):
   * the readers stop and nothing is committed, unless the commit was already under way.
   */
  private async store(
    spool: Spool,
    env: InboundEnvelope,
    to: TeamDelivery,
    authPending: Promise<Authentication>,
    inputs: Readable[],
    signal?: AbortSignal,
  ): Promise<string> {
    const id = uuid();
    const createdAt = new Date().toISOString();
    const writer = new ChunkWriter(this.deps.pool);
    const cut = () => {
      for (const s of inputs) s.destroy(signal?.reason);
    };
    signal?.addEventListener('abort', cut, { once: true });
    try {
      signal?.throwIfAborted();
      const rawBlob = uuid();
      const attachments: ReceivedAttachmentRow[] = [];
      const reportCandidates: Buffer[] = [];
      const [, parsed] = await bothOrNeither(inputs, [
        writer.writeBlob(rawBlob, inputs[0]),
        parseInbound(inputs[1], async (meta, content) => {
          const blobId = uuid();
          const size = await writer.writeBlob(
            blobId,
            mayBeReport(meta.contentType, meta.filename) ? keepCopy(content, reportCandidates) : content,
          );
          attachments.push({
            id: uuid(),
            email_id: id,
            team_id: to.teamId,
            position: meta.position,
            filename: meta.filename,
            content_type: meta.contentType,
            content_id: meta.contentId,
            content_disposition: meta.contentDisposition,
            size,
            blob_id: blobId,
            created_at: createdAt,
          });
          return size;
        }),
      ] as const);
      attachments.sort((a, b) => a.position - b.position);
      const auth = await authPending;
      const email: ReceivedInsert['email'] = {
        id,
        team_id: to.teamId,
        domain_id: to.domainId,
        mail_from: env.mailFrom,
        received_for: to.recipients,
        from_addr: parsed.from,
        to_addrs: parsed.to,
        cc_addrs: parsed.cc,
        bcc_addrs: parsed.bcc,
        reply_to: parsed.replyTo,
        subject: parsed.subject,
        message_id: parsed.messageId,
        html: parsed.html,
        text_body: parsed.text,
        headers: parsed.headers,
        authentication: { ...auth },
        client_ip: env.clientIp,
        helo: env.helo,
        tls: env.tls,
        raw_blob: rawBlob,
        raw_size: spool.size,
        created_at: createdAt,
      };
      const event = {
        id: uuid(),
        email_id: id,
        team_id: to.teamId,
        type: 'email.received',
        recipient: null,
        data: receivedEventData(email, attachments),
        detail: {
          mail_from: env.mailFrom,
          client_ip: env.clientIp,
          helo: env.helo,
          tls: env.tls,
          size: spool.size,
          authentication: auth,
        },
        created_at: createdAt,
      };
      const item = { email, attachments, event };
      const inInbox = await writer.finish((db, chunks) => {
        signal?.throwIfAborted();
        return db
          ? receivedEmailsInsert(db, [item], chunks).then((ids) => ids.has(id))
          : this.batch.add({ items: [item], chunks });
      }, signal);
      // Into the team's inboxes among the recipients, once the received email is committed (the
      // insert said whether any is addressed). A failure here leaves the email in
      // /emails/receiving (logged); the sender is not asked to send again.
      if (inInbox)
        await fileReceived(this.deps.pool, email, attachments).catch((err) =>
          this.deps.log?.error('filing into an inbox failed', { err, email: id }),
        );
      if (reportCandidates.length) {
        const ingested = await ingestDmarcReports(this.deps.pool, to.teamId, id, reportCandidates).catch((err) => {
          this.deps.log?.error('storing DMARC reports failed', { err, email: id });
          return undefined;
        });
        for (const r of ingested?.refused ?? [])
          this.deps.log?.warn('DMARC report attachment not read', { email: id, reason: r.reason, detail: r.detail });
      }
      return id;
    } catch (err) {
      await writer.abort();
      throw err;
    } finally {
      signal?.removeEventListener('abort', cut);
    }
  }
}

/**
 * Both results, once both have settled; when one fails, the inputs of both are destroyed so that
 * the other, and the spool's other readers, do not wait on it, and the first real failure is thrown.
 */
async function bothOrNeither<A, B>(inputs: Readable[], work: readonly [Promise<A>, Promise<B>]): Promise<[A, B]> {
  const stopped = new Error('stopped: the other reader of the message failed');
  const stop = (err: unknown) => {
    for (const s of inputs) s.destroy(stopped);
    throw err;
  };
  const [a, b] = await Promise.allSettled([work[0].catch(stop), work[1].catch(stop)]);
  if (a.status === 'fulfilled' && b.status === 'fulfilled') return [a.value, b.value];
  const reasons = [a, b].flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  throw reasons.find((r) => r !== stopped && !(r instanceof Error && r.cause === stopped)) ?? reasons[0];
}

/**
 * Passes `content` through while copying it into `into`; the copy is dropped once the first
 * bytes show it cannot be a report (reportHeadPlausible) or past MAX_ATTACHMENT_BYTES.
 */
function keepCopy(content: NodeJS.ReadableStream, into: Buffer[]): Transform {
  let chunks: Buffer[] | undefined = [];
  let size = 0;
  let sniffed = false;
  const sniff = () => {
    sniffed = true;
    if (chunks && !reportHeadPlausible(Buffer.concat(chunks))) chunks = undefined;
  };
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      size += chunk.length;
      if (size > MAX_ATTACHMENT_BYTES) chunks = undefined; // too big to be a report: let go of the copy now
      chunks?.push(chunk);
      if (!sniffed && size >= REPORT_HEAD_BYTES) sniff();
      cb(null, chunk);
    },
    flush(cb) {
      if (!sniffed) sniff();
      if (chunks) into.push(Buffer.concat(chunks));
      cb();
    },
  });
  content.on('error', (err) => t.destroy(err as Error));
  return content.pipe(t);
}

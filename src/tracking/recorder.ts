// Records opens and clicks without a database write per hit: hits are buffered and written every
// FLUSH_MS (or BATCH hits) as email.opened / email.clicked events in one statement, after one read
// of the emails they belong to. Repeated opens of an email are dropped in memory first; the
// database keeps only the first open anyway. Flushed on shutdown.
import { BufferedWriter } from '../lib/buffered-writer.js';
import type { Logger } from '../lib/log.js';
import type { Queryable } from '../store/db.js';
import type { EventInsert } from '../store/emails.js';
import { emailEventsInsertTracked, emailsFindForTracking } from '../store/tracking.js';
import { makeEvent } from '../events/email-events.js';
import { detectProxy, isMachineOpen } from './proxies.js';

const FLUSH_MS = 250;
const BATCH = 1_000;
const MAX_BUFFER = 100_000; // beyond this, hits are dropped (and counted) rather than exhaust memory
const SEEN_OPENS = 100_000; // emails whose first open is already recorded, remembered in memory

export interface Hit {
  kind: 'open' | 'click';
  emailId: string;
  url?: string;
  ip: string | undefined;
  userAgent: string | undefined;
  at: Date;
}

export class TrackingRecorder {
  private readonly seenOpens = new Set<string>();
  private readonly writer: BufferedWriter<Hit>;

  constructor(
    private readonly db: Queryable,
    log: Logger,
  ) {
    this.writer = new BufferedWriter((hits) => this.write(hits), {
      name: 'tracking',
      flushMs: FLUSH_MS,
      batch: BATCH,
      maxBuffer: MAX_BUFFER,
      log,
    });
  }

  get dropped(): number {
    return this.writer.dropped;
  }

  record(hit: Hit): void {
    if (hit.kind === 'open') {
      if (this.seenOpens.has(hit.emailId)) return;
      if (this.seenOpens.size >= SEEN_OPENS) this.seenOpens.clear();
      this.seenOpens.add(hit.emailId);
    }
    this.writer.push(hit);
  }

  flush(): Promise<void> {
    return this.writer.flush();
  }

  private async write(hits: Hit[]): Promise<void> {
    const emails = new Map(
      (await emailsFindForTracking(this.db, [...new Set(hits.map((h) => h.emailId))])).map((e) => [e.id, e]),
    );
    const events: EventInsert[] = [];
    for (const h of hits) {
      const email = emails.get(h.emailId);
      if (!email) continue; // deleted since it was sent
      const seen = { ipAddress: h.ip ?? null, timestamp: h.at.toISOString(), userAgent: h.userAgent ?? null };
      // The pixel and links are per email, not per recipient: an email to one address (a broadcast's,
      // most transactional mail) names who engaged, which segment filters on engagement read.
      const recipient = email.to_addrs.length === 1 ? email.to_addrs[0] : null;
      if (h.kind === 'click') {
        events.push(
          makeEvent(email, 'email.clicked', { recipient, at: h.at, extra: { click: { ...seen, link: h.url } } }),
        );
      } else {
        const proxy = detectProxy(h.ip, h.userAgent);
        events.push(
          makeEvent(email, 'email.opened', {
            recipient,
            at: h.at,
            extra: { open: { ...seen, machine: isMachineOpen(proxy), proxy } },
          }),
        );
      }
    }
    await emailEventsInsertTracked(this.db, events);
  }
}

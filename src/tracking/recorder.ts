// Records opens and clicks without a database write per hit: hits are buffered and written every
// FLUSH_MS (or BATCH hits) as email.opened / email.clicked events in one statement, after one read
// of the emails they belong to. Repeated opens of an email are dropped in memory first; the
// database keeps only the first open anyway. Flushed on shutdown.
import type { Logger } from '../lib/log.js';
import type { Queryable } from '../store/db.js';
import type { EventInsert } from '../store/emails.js';
import { emailEventsInsertTracked, emailsFindForTracking } from '../store/tracking.js';
import { makeEvent } from '../emails/events.js';
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
  private buffer: Hit[] = [];
  private readonly seenOpens = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  dropped = 0;

  constructor(private readonly db: Queryable, private readonly log: Logger) {}

  record(hit: Hit): void {
    if (hit.kind === 'open') {
      if (this.seenOpens.has(hit.emailId)) return;
      if (this.seenOpens.size >= SEEN_OPENS) this.seenOpens.clear();
      this.seenOpens.add(hit.emailId);
    }
    if (this.buffer.length >= MAX_BUFFER) {
      this.dropped++;
      return;
    }
    this.buffer.push(hit);
    if (this.buffer.length >= BATCH) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
      this.timer.unref();
    }
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    if (!this.buffer.length) return;
    const hits = this.buffer.splice(0, BATCH);
    this.flushing = this.write(hits)
      .catch((err) => this.log.error('tracking write failed', { err, hits: hits.length }))
      .finally(() => { this.flushing = undefined; });
    await this.flushing;
    if (this.buffer.length) await this.flush();
  }

  private async write(hits: Hit[]): Promise<void> {
    const emails = new Map((await emailsFindForTracking(this.db, [...new Set(hits.map((h) => h.emailId))])).map((e) => [e.id, e]));
    const events: EventInsert[] = [];
    for (const h of hits) {
      const email = emails.get(h.emailId);
      if (!email) continue; // deleted since it was sent
      const seen = { ipAddress: h.ip ?? null, timestamp: h.at.toISOString(), userAgent: h.userAgent ?? null };
      if (h.kind === 'click') {
        events.push(makeEvent(email, 'email.clicked', { at: h.at, extra: { click: { ...seen, link: h.url } } }));
      } else {
        const proxy = detectProxy(h.ip, h.userAgent);
        events.push(makeEvent(email, 'email.opened', { at: h.at, extra: { open: { ...seen, machine: isMachineOpen(proxy), proxy } } }));
      }
    }
    await emailEventsInsertTracked(this.db, events);
  }
}

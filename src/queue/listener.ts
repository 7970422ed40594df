// The workers' doorbell: one dedicated connection per pool LISTENing on the jobs channel, shared by
// every worker of the process (a process ran five, one connection each), reconnected when it drops.
// It rings every subscriber after each (re)connect too, since notifications sent while away are lost.
import pg from 'pg';
import type { Logger } from '../lib/log.js';

export interface JobListenerOptions {
  config: pg.ClientConfig;
  channel: string;
  log: Logger;
}

export interface JobSubscriber {
  onNotify(payload: string): void;
  onConnect(): void;
}

const FIRST_RETRY_MS = 500;
// At most 5 s between attempts: with 30 s, a 30 s PostgreSQL restart left the doorbell down for
// another ~30 s after the database was back (the retries had doubled to 16 s, then 30 s; seen in
// test/flows/db-outage.test.ts), jobs waiting for the workers' idle poll meanwhile. An attempt
// against a server that is down is one refused TCP connection.
const MAX_RETRY_MS = 5_000;

export class JobListener {
  private client: pg.Client | undefined;
  private closed = true;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly subscribers = new Set<JobSubscriber>();
  private connecting: Promise<void> | undefined;

  constructor(private readonly opts: JobListenerOptions) {}

  /**
   * Adds a subscriber; the first one opens the connection. Resolves after the first attempt to
   * connect, whether it succeeded or a retry is scheduled.
   */
  async subscribe(sub: JobSubscriber): Promise<void> {
    this.subscribers.add(sub);
    if (this.closed) {
      this.closed = false;
      this.connecting = this.connect();
    }
    await this.connecting;
  }

  /** Removes a subscriber; the last one closes the connection. */
  async unsubscribe(sub: JobSubscriber): Promise<void> {
    if (!this.subscribers.delete(sub) || this.subscribers.size > 0) return;
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
  }

  private ring(what: (s: JobSubscriber) => void) {
    for (const s of [...this.subscribers]) what(s);
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const { channel, log } = this.opts;
    // Keepalive so that a connection dropped without a FIN (a NAT timeout) is noticed at all.
    const client = new pg.Client({ ...this.opts.config, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    this.client = client;
    let lost = false;
    const onLost = (err?: Error) => {
      if (lost) return;
      lost = true;
      // A connection closed and replaced by a newer one (unsubscribed, then subscribed again) is over.
      const current = this.client === client;
      if (current) this.client = undefined;
      client.end().catch(() => undefined);
      if (this.closed || !current) return;
      log.warn('job listener connection lost; reconnecting', { err, inMs: this.retryMs });
      this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (m) => {
      if (m.channel === channel) this.ring((s) => s.onNotify(m.payload ?? ''));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    } catch (err) {
      onLost(err as Error);
      return;
    }
    if (this.closed || lost) return;
    this.retryMs = FIRST_RETRY_MS;
    this.ring((s) => s.onConnect());
  }
}

const shared = new WeakMap<object, JobListener>();

/** The one listener of the process for this pool (the key), made with `opts` on first use. */
export function sharedJobListener(pool: object, opts: () => JobListenerOptions): JobListener {
  let l = shared.get(pool);
  if (!l) {
    l = new JobListener(opts());
    shared.set(pool, l);
  }
  return l;
}

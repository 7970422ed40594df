// The worker's doorbell: one dedicated connection LISTENing on the jobs channel, reconnected when it
// drops. It rings after every (re)connect too, since notifications sent while away are lost.
import pg from 'pg';
import type { Logger } from '../lib/log.js';

export interface JobListenerOptions {
  config: pg.ClientConfig;
  channel: string;
  log: Logger;
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
  private closed = false;
  private retryMs = FIRST_RETRY_MS;
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: JobListenerOptions) {}

  /** Resolves after the first attempt to connect, whether it succeeded or a retry is scheduled. */
  start(): Promise<void> {
    this.closed = false;
    return this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    if (client) await client.end().catch(() => undefined);
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
      if (this.client === client) this.client = undefined;
      client.end().catch(() => undefined);
      if (this.closed) return;
      log.warn('job listener connection lost; reconnecting', { err, inMs: this.retryMs });
      this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
    };
    client.on('error', onLost);
    client.on('end', () => onLost());
    client.on('notification', (m) => {
      if (m.channel === channel) this.opts.onNotify(m.payload ?? '');
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
    this.opts.onConnect();
  }
}

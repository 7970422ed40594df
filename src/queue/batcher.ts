// Group commit for one kind of write: calls made in the same turn of the event loop, or while the
// flushes allowed in flight are all busy, are coalesced into one flush: N writes cost about one
// statement (and one WAL fsync) instead of N, for no more delay than one setImmediate. The items are
// concurrent requests, often of different teams: when a flush of several fails, each is flushed
// again alone, in order, so one bad entry fails only its own caller (issue 24: one team's payload
// failed 8 of 300 others). `flush` must be all or nothing (one statement or one transaction) for
// that second try to be safe.
//
// `inFlight` (default 1) is how many flushes may run at once. With one, items wait behind the
// flush in flight, then go in the next: fine where only throughput matters, and flushes keep the
// order of their items. Where each item's write should reach the database as soon as possible (a
// delivery's result, issue 26: a result still in this process's memory at a kill -9 is sent again,
// while a statement already sent is finished by PostgreSQL), a flush starts at once, without the
// setImmediate, as long as fewer than `inFlight` run; past that, items wait and go together.
// `lingerMs` bounds how long such an item may wait for others to share its flush (0: none), for
// writes whose statement costs mostly the same whatever it carries (delivery/deliver.job.ts); a
// flush starts at once when `lingerMax` items wait.
export class Batcher<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private scheduled = false; // a setImmediate will start a flush
  private lingering: NodeJS.Timeout | undefined; // a timer will start a flush
  private active = 0; // flushes in flight

  /** `flush` returns one result per item, in order. */
  constructor(
    private readonly flush: (items: T[]) => Promise<R[]>,
    private readonly inFlight = 1,
    private readonly linger: { lingerMs: number; lingerMax: number } = { lingerMs: 0, lingerMax: 0 },
  ) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      // With several flushes allowed, one starts at once while below the bound: the item is on its
      // way to the database in the same turn (a busy batcher still groups: the items that come
      // while every flush is in flight go together in the next).
      if (this.inFlight > 1) {
        if (!this.linger.lingerMs || this.queue.length >= this.linger.lingerMax) return this.start();
        this.lingering ??= setTimeout(() => {
          this.lingering = undefined;
          this.start();
        }, this.linger.lingerMs);
        return;
      }
      if (!this.scheduled && this.active < this.inFlight) {
        this.scheduled = true;
        setImmediate(() => {
          this.scheduled = false;
          this.start();
        });
      }
    });
  }

  /** Flushes what is queued, unless every flush allowed is in flight (the first to end starts it). */
  private start(): void {
    if (!this.queue.length || this.active >= this.inFlight) return;
    const batch = this.queue;
    this.queue = [];
    this.active++;
    void this.run(batch).finally(() => {
      this.active--;
      this.start();
    });
  }

  private async run(batch: typeof this.queue): Promise<void> {
    try {
      const results = await this.flush(batch.map((b) => b.item));
      batch.forEach((b, i) => b.resolve(results[i]));
    } catch (err) {
      if (batch.length === 1) batch[0].reject(err);
      // One by one, in the batch's order (callers may rely on it, e.g. events queued for automations).
      else for (const b of batch) await this.flush([b.item]).then((r) => b.resolve(r[0]), b.reject);
    }
  }
}

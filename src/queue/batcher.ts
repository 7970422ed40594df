// Group commit for one kind of write: calls made in the same turn of the event loop, or while a
// flush is in flight, are coalesced into one flush: N writes cost about one statement (and one WAL
// fsync) instead of N, for no more delay than one setImmediate. The items are concurrent requests,
// often of different teams: when a flush of several fails, each is flushed again alone, in order,
// so one bad entry fails only its own caller (issue 24: one team's payload failed 8 of 300 others).
// `flush` must be all or nothing (one statement or one transaction) for that second try to be safe.
export class Batcher<T, R> {
  private queue: { item: T; resolve: (r: R) => void; reject: (err: unknown) => void }[] = [];
  private flushing: Promise<void> | undefined;

  /** `flush` returns one result per item, in order. */
  constructor(private readonly flush: (items: T[]) => Promise<R[]>) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (!this.flushing) this.flushing = new Promise((r) => setImmediate(r)).then(() => this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length) {
      const batch = this.queue;
      this.queue = [];
      try {
        const results = await this.flush(batch.map((b) => b.item));
        batch.forEach((b, i) => b.resolve(results[i]));
      } catch (err) {
        if (batch.length === 1) batch[0].reject(err);
        // One by one, in the batch's order (callers may rely on it, e.g. events queued for automations).
        else for (const b of batch) await this.flush([b.item]).then((r) => b.resolve(r[0]), b.reject);
      }
    }
    this.flushing = undefined;
  }
}

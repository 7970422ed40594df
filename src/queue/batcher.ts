// Group commit for one kind of write: calls made in the same turn of the event loop, or while a
// flush is in flight, are coalesced into one flush: N writes cost about one statement (and one WAL
// fsync) instead of N, for no more delay than one setImmediate.
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
        for (const b of batch) b.reject(err);
      }
    }
    this.flushing = undefined;
  }
}

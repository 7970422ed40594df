// One lookup in flight per key, shared by every caller that asks while it runs: when a cached row
// expires under load, the requests in flight (64 at a time in the API benchmark) each looked the
// same row up again (issue 27: 141-172 repeated API key lookups per benchmark run).
// forget(key) detaches a lookup in flight (a revocation while it runs): its callers still get its
// answer; a caller arriving after it starts a new lookup.
export class SingleFlight<V> {
  private readonly inFlight = new Map<string, Promise<V>>();

  run(key: string, lookup: () => Promise<V>): Promise<V> {
    let p = this.inFlight.get(key);
    if (!p) {
      p = lookup();
      this.inFlight.set(key, p);
      const done = () => {
        if (this.inFlight.get(key) === p) this.inFlight.delete(key);
      };
      p.then(done, done);
    }
    return p;
  }

  forget(key: string): void {
    this.inFlight.delete(key);
  }
}

// Buffers items written off the request path and hands them to `write` in batches: every
// `flushMs`, or at once when `batch` items wait; one write at a time; drops (and counts) items
// beyond `maxBuffer` rather than exhaust memory. flush() drains everything (used at shutdown).
import type { Logger } from './log.js';

export interface BufferedWriterOptions {
  name: string;
  flushMs: number;
  batch: number;
  maxBuffer: number;
  log: Logger;
}

export class BufferedWriter<T> {
  private buffer: T[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  dropped = 0;

  constructor(private readonly write: (items: T[]) => Promise<void>, private readonly opts: BufferedWriterOptions) {}

  push(item: T): void {
    if (this.buffer.length >= this.opts.maxBuffer) {
      this.dropped++;
      return;
    }
    this.buffer.push(item);
    if (this.buffer.length >= this.opts.batch) void this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => void this.flush(), this.opts.flushMs);
      this.timer.unref();
    }
  }

  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.flushing) await this.flushing;
    if (!this.buffer.length) return;
    const items = this.buffer.splice(0, this.opts.batch);
    this.flushing = this.write(items)
      .catch((err) => this.opts.log.error(`${this.opts.name} write failed`, { err, items: items.length }))
      .finally(() => { this.flushing = undefined; });
    await this.flushing;
    if (this.buffer.length) await this.flush();
  }
}

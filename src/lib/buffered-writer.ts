// Buffers items written off the request path and hands them to `write` in batches: every
// `flushMs`, or at once when `batch` items wait; one write at a time; drops (and counts) items
// beyond `maxBuffer` rather than exhaust memory. flush() drains everything (used at shutdown).
// A batch that fails is written again item by item, so one bad item never takes the others with
// it; the items that still fail are logged and counted (`failed`).
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
  failed = 0;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly opts: BufferedWriterOptions,
  ) {}

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
    this.flushing = this.writeOrSplit(items).finally(() => {
      this.flushing = undefined;
    });
    await this.flushing;
    if (this.buffer.length) await this.flush();
  }

  private async writeOrSplit(items: T[]): Promise<void> {
    try {
      await this.write(items);
      return;
    } catch (err) {
      if (items.length === 1) {
        this.failed++;
        this.opts.log.error(`${this.opts.name} write failed`, { err, items: 1 });
        return;
      }
      this.opts.log.warn(`${this.opts.name} batch write failed; writing its items one by one`, {
        err,
        items: items.length,
      });
    }
    for (const item of items) await this.writeOrSplit([item]);
  }
}

// Where an inbound message waits while it is received, authenticated and parsed: in memory up
// to SPILL_BYTES, 256 KB (the common case: one Buffer, no file), past that in a temporary file, so a
// 40 MB message costs a file and a few chunk buffers of memory, not 40 MB per connection. A file
// is read once for all its readers (streams(k)): reading it once per reader cost 3.4 ms of CPU
// per pass over a 1.4 MB message, a tenth of its CPU (issue 27).
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';

// 256 KB: a 10 KB message never reaches it; with 1 MB, twenty sessions receiving 1.4 MB messages
// held 20 MB of message chunks in memory before their files (issue 27, the MX's peak RSS).
const SPILL_BYTES = 256 * 1024;

export class Spool {
  size = 0;
  private chunks: Buffer[] = [];
  private file?: { path: string; fd: number };

  constructor(private readonly dir: string) {}

  write(chunk: Buffer): void {
    this.size += chunk.length;
    if (this.file) {
      fs.writeSync(this.file.fd, chunk);
      return;
    }
    this.chunks.push(chunk);
    if (this.size > SPILL_BYTES) {
      fs.mkdirSync(this.dir, { recursive: true });
      const p = path.join(this.dir, `${randomUUID()}.eml`);
      this.file = { path: p, fd: fs.openSync(p, 'w', 0o600) };
      for (const c of this.chunks) fs.writeSync(this.file.fd, c);
      this.chunks = [];
    }
  }

  /** The whole message when it stayed in memory. */
  buffer(): Buffer | undefined {
    if (this.file) return undefined;
    if (this.chunks.length !== 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  /** The first bytes of the message (at most `max`): enough for its header section. */
  head(max = 256 * 1024): Buffer {
    const b = this.buffer();
    if (b) return b.subarray(0, max);
    const out = Buffer.alloc(Math.min(max, this.size));
    const fd = fs.openSync(this.file!.path, 'r');
    try {
      fs.readSync(fd, out, 0, out.length, 0);
    } finally {
      fs.closeSync(fd);
    }
    return out;
  }

  /** A fresh stream over the message, as many times as needed. */
  stream(): Readable {
    const b = this.buffer();
    if (b) return Readable.from([b], { objectMode: false });
    return fs.createReadStream(this.file!.path, { highWaterMark: 256 * 1024 });
  }

  /**
   * `k` streams over the message from one read of it, for readers that run at the same time. The
   * slowest sets the pace (backpressure), so each must be read to its end or destroyed: a
   * destroyed one stops counting, the others go on. (Readable.pipe to several destinations
   * does not do that: a destination destroyed while the source waits for its drain stalls the rest.)
   */
  streams(k: number): Readable[] {
    const b = this.buffer();
    if (b) return Array.from({ length: k }, () => Readable.from([b], { objectMode: false }));
    const source = fs.createReadStream(this.file!.path, { highWaterMark: 256 * 1024 });
    const outs = Array.from({ length: k }, () => new PassThrough({ highWaterMark: 256 * 1024 }));
    const live = new Set(outs);
    const waiting = new Set<PassThrough>();
    const release = (o: PassThrough) => {
      if (waiting.delete(o) && waiting.size === 0) source.resume();
    };
    for (const o of outs) {
      o.on('drain', () => release(o));
      o.once('close', () => {
        live.delete(o);
        release(o);
        if (!live.size) source.destroy(); // nobody reads any more
      });
    }
    source.on('data', (chunk) => {
      for (const o of live) {
        if (o.destroyed) live.delete(o);
        else if (!o.write(chunk)) waiting.add(o);
      }
      if (waiting.size) source.pause();
    });
    source.once('end', () => {
      for (const o of live) o.end();
    });
    source.once('error', (err) => {
      for (const o of outs) o.destroy(err);
    });
    return outs;
  }

  /** Reads the whole message (for small ones, or when the caller has bounded the size). */
  async readAll(): Promise<Buffer> {
    const b = this.buffer();
    if (b) return b;
    return fs.promises.readFile(this.file!.path);
  }

  dispose(): void {
    this.chunks = [];
    if (this.file) {
      try {
        fs.closeSync(this.file.fd);
      } catch {
        /* already closed */
      }
      fs.rmSync(this.file.path, { force: true });
      this.file = undefined;
    }
  }
}

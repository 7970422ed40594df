// Where an inbound message waits while it is received, authenticated and parsed: in memory up
// to SPILL_BYTES (the common case: one Buffer, no file), past that in a temporary file, so a
// 40 MB message costs a file and a few chunk buffers of memory, not 40 MB per connection.
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { randomUUID } from 'node:crypto';

const SPILL_BYTES = 1024 * 1024;

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

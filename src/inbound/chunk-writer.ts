// Writes the blobs of one received message (raw, attachments) as chunks. A small message keeps
// its chunks in memory and commits them with its rows in one statement; once a message passes
// SPILL_BYTES its chunks are written as they come, inside a transaction of its own that the
// final statement commits, so memory stays bounded and a failure leaves nothing behind. Blobs
// may be written at the same time (the raw message while its attachments are parsed): spills
// run one after the other on the one transaction.
import { BLOB_CHUNK_BYTES, blobChunksInsert, type BlobChunk } from '../store/blobs.js';
import type { Pool, Queryable, Tx } from '../store/db.js';

// Two 256 KB chunks a statement: each spill is copied twice more on its way (one parameter, then
// node-pg's message), so the pending bytes are a message's memory three times over (issue 27).
const SPILL_BYTES = 512 * 1024;

export class ChunkWriter {
  private pending: BlobChunk[] = [];
  private pendingBytes = 0;
  private tx?: Tx;
  private spilling: Promise<void> = Promise.resolve();
  /** finished or aborted: a blob still being written (a parse that went on) may not open a new transaction */
  private closed = false;

  constructor(private readonly pool: Pool) {}

  /** Whether chunks already went to the database (the final write must then use `finish`'s db). */
  get spilled(): boolean {
    return this.tx !== undefined;
  }

  /** Streams one blob in; returns its size in bytes. */
  async writeBlob(blobId: string, source: AsyncIterable<Buffer | string>): Promise<number> {
    let n = 0;
    let size = 0;
    let buf: Buffer[] = [];
    let bufBytes = 0;
    const emit = async (data: Buffer) => {
      this.pending.push({ blob_id: blobId, n: n++, data });
      this.pendingBytes += data.length;
      if (this.pendingBytes >= SPILL_BYTES) await this.spill();
    };
    for await (const c of source) {
      const chunk = typeof c === 'string' ? Buffer.from(c) : c;
      size += chunk.length;
      buf.push(chunk);
      bufBytes += chunk.length;
      while (bufBytes >= BLOB_CHUNK_BYTES) {
        const all = buf.length === 1 ? buf[0] : Buffer.concat(buf);
        await emit(Buffer.from(all.subarray(0, BLOB_CHUNK_BYTES)));
        const rest = all.subarray(BLOB_CHUNK_BYTES);
        buf = rest.length ? [rest] : [];
        bufBytes = rest.length;
      }
    }
    if (bufBytes || n === 0) await emit(buf.length === 1 ? buf[0] : Buffer.concat(buf));
    return size;
  }

  private spill(): Promise<void> {
    this.spilling = this.spilling.then(() => this.spillNow());
    return this.spilling;
  }

  private async spillNow(): Promise<void> {
    if (this.closed) throw new Error('the message was already stored or given up');
    if (!this.tx) {
      this.tx = await this.pool.connect();
      await this.tx.query('BEGIN');
    }
    const chunks = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    await blobChunksInsert(this.tx, chunks);
  }

  /**
   * The chunks not yet written; `write` must insert them with the rows, on `db`; its result is
   * returned once committed. `signal` aborted once the rows are written: rolled back instead of committed.
   */
  async finish<T>(
    write: (db: Queryable | undefined, chunks: BlobChunk[]) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    await this.spilling;
    this.closed = true;
    const chunks = this.pending;
    this.pending = [];
    if (!this.tx) return write(undefined, chunks);
    const tx = this.tx;
    this.tx = undefined;
    try {
      const out = await write(tx, chunks);
      signal?.throwIfAborted();
      await tx.query('COMMIT');
      return out;
    } catch (err) {
      await tx.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      tx.release();
    }
  }

  async abort(): Promise<void> {
    // Closed first: a writer still running after its message failed (an attachment the parser
    // was streaming) must not open a transaction that nobody would ever end (a client held
    // until the pool's end, which then never comes).
    this.closed = true;
    await this.spilling.catch(() => undefined);
    this.pending = [];
    if (!this.tx) return;
    const tx = this.tx;
    this.tx = undefined;
    await tx.query('ROLLBACK').catch(() => undefined);
    tx.release();
  }
}

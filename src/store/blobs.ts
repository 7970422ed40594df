// Large contents (raw inbound messages, attachments) stored once as ordered chunks, so that they
// are written and read as streams: a 40 MB message never sits whole in the process's memory.
import { Readable } from 'node:stream';
import type { Queryable } from './db.js';

export const BLOB_CHUNK_BYTES = 256 * 1024;

export interface BlobChunk {
  blob_id: string;
  n: number;
  data: Buffer;
}

/**
 * The parameters that carry chunks to INSERT_CHUNKS_FROM: node-pg sends a Buffer parameter as
 * binary but a bytea[] as hex text (twice the bytes, and hex encoding cost 4-5% of the MX's CPU
 * at 10 KB messages), so the contents travel as one binary buffer cut apart by the server.
 */
export function chunkParams(chunks: BlobChunk[]): [string[], number[], Buffer, number[], number[]] {
  const offsets: number[] = [];
  let at = 0;
  for (const c of chunks) {
    offsets.push(at);
    at += c.data.length;
  }
  return [
    chunks.map((c) => c.blob_id),
    chunks.map((c) => c.n),
    Buffer.concat(chunks.map((c) => c.data)),
    offsets,
    chunks.map((c) => c.data.length),
  ];
}

/** SELECT rows for blob_chunks from chunkParams at parameter `$p` onwards ($p..$p+4). */
export const chunksFrom = (p: number) =>
  `SELECT b, n, substring($${p + 2}::bytea FROM o + 1 FOR l) FROM unnest($${p}::uuid[], $${p + 1}::int[], $${p + 3}::int[], $${p + 4}::int[]) AS t(b, n, o, l)`;

/** Inserts chunks in one statement (the caller's transaction decides atomicity). */
export async function blobChunksInsert(db: Queryable, chunks: BlobChunk[]): Promise<void> {
  if (!chunks.length) return;
  await db.query(`INSERT INTO blob_chunks (blob_id, n, data) ${chunksFrom(1)}`, chunkParams(chunks));
}

/** The blob as a stream, one chunk read at a time. */
export function blobStream(db: Queryable, blobId: string): Readable {
  async function* chunks() {
    for (let n = 0; ; n++) {
      const { rows } = await db.query<{ data: Buffer }>('SELECT data FROM blob_chunks WHERE blob_id = $1 AND n = $2', [
        blobId,
        n,
      ]);
      if (!rows[0]) return;
      yield rows[0].data;
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** The whole blob (for small ones: inline images, reports). */
export async function blobRead(db: Queryable, blobId: string): Promise<Buffer> {
  const { rows } = await db.query<{ data: Buffer }>('SELECT data FROM blob_chunks WHERE blob_id = $1 ORDER BY n', [
    blobId,
  ]);
  return Buffer.concat(rows.map((r) => r.data));
}

export async function blobsDelete(db: Queryable, blobIds: string[]): Promise<void> {
  if (blobIds.length) await db.query('DELETE FROM blob_chunks WHERE blob_id = ANY($1::uuid[])', [blobIds]);
}

/**
 * Writes a stream as a new blob, BLOB_CHUNK_BYTES at a time (one INSERT per chunk), so that at
 * most one chunk is held in memory. Returns the bytes written.
 */
export async function blobWriteStream(db: Queryable, blobId: string, input: AsyncIterable<Buffer>): Promise<number> {
  let held: Buffer[] = [];
  let heldBytes = 0;
  let n = 0;
  let total = 0;
  const flush = async (data: Buffer) => {
    await blobChunksInsert(db, [{ blob_id: blobId, n: n++, data }]);
  };
  for await (const piece of input) {
    held.push(piece);
    heldBytes += piece.length;
    total += piece.length;
    while (heldBytes >= BLOB_CHUNK_BYTES) {
      const all = Buffer.concat(held);
      await flush(all.subarray(0, BLOB_CHUNK_BYTES));
      held = [all.subarray(BLOB_CHUNK_BYTES)];
      heldBytes = held[0].length;
    }
  }
  if (heldBytes) await flush(Buffer.concat(held));
  return total;
}

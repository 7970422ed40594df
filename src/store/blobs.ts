// Large contents (raw inbound messages, attachments) stored once as ordered chunks, so that they
// are written and read as streams: a 40 MB message never sits whole in the process's memory.
import { Readable } from 'node:stream';
import type { Queryable } from './db.js';

export const BLOB_CHUNK_BYTES = 256 * 1024;

export interface BlobChunk { blob_id: string; n: number; data: Buffer }

/** Inserts chunks in one statement (the caller's transaction decides atomicity). */
export async function blobChunksInsert(db: Queryable, chunks: BlobChunk[]): Promise<void> {
  if (!chunks.length) return;
  await db.query('INSERT INTO blob_chunks (blob_id, n, data) SELECT * FROM unnest($1::uuid[], $2::int[], $3::bytea[])',
    [chunks.map((c) => c.blob_id), chunks.map((c) => c.n), chunks.map((c) => c.data)]);
}

/** The blob as a stream, one chunk read at a time. */
export function blobStream(db: Queryable, blobId: string): Readable {
  async function* chunks() {
    for (let n = 0; ; n++) {
      const { rows } = await db.query<{ data: Buffer }>('SELECT data FROM blob_chunks WHERE blob_id = $1 AND n = $2', [blobId, n]);
      if (!rows[0]) return;
      yield rows[0].data;
    }
  }
  return Readable.from(chunks(), { objectMode: false });
}

/** The whole blob (for small ones: inline images, reports). */
export async function blobRead(db: Queryable, blobId: string): Promise<Buffer> {
  const { rows } = await db.query<{ data: Buffer }>('SELECT data FROM blob_chunks WHERE blob_id = $1 ORDER BY n', [blobId]);
  return Buffer.concat(rows.map((r) => r.data));
}

export async function blobsDelete(db: Queryable, blobIds: string[]): Promise<void> {
  if (blobIds.length) await db.query('DELETE FROM blob_chunks WHERE blob_id = ANY($1::uuid[])', [blobIds]);
}

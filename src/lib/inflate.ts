// Decompression of untrusted gzip and zip archives with a hard limit on what they inflate to: the
// inflated bytes are counted as they stream and the inflater is destroyed at the limit; the sizes
// an archive declares are never trusted. Inflates with node:zlib's asynchronous streams, which run
// on the libuv threadpool in 64 kB steps, not on the calling thread's event loop.
import { createGunzip, createInflateRaw, type Gunzip, type InflateRaw } from 'node:zlib';

export interface InflatedFile {
  name: string;
  data: Buffer;
}
export type Inflated =
  | { ok: true; files: InflatedFile[] }
  | { ok: false; reason: 'too_large' | 'too_many_files' | 'corrupt'; detail: string };

export interface InflateLimits {
  /** Inflated bytes allowed in total (all files of a zip together). */
  maxBytes: number;
  /** Zip: entries beyond this many accepted ones refuse the archive. */
  maxFiles?: number;
  /** Zip: which entries to inflate, by name (the others are skipped unread). */
  accept?: (name: string) => boolean;
}

const STEP = 64 * 1024; // output per threadpool step: small steps keep each callback short
const tooLarge = (max: number): Inflated => ({ ok: false, reason: 'too_large', detail: `inflates past ${max} bytes` });
const corrupt = (detail: string): Inflated => ({ ok: false, reason: 'corrupt', detail });

export const isGzip = (b: Uint8Array) => b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b;
export const isZip = (b: Uint8Array) =>
  b.length >= 4 && b[0] === 0x50 && b[1] === 0x4b && b[2] === 0x03 && b[3] === 0x04;

/** Inflates `input` through `z`, stopping (and destroying `z`) once more than `budget` bytes come out. */
function inflateCounted(z: Gunzip | InflateRaw, input: Uint8Array, budget: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    z.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > budget) {
        settled = true;
        z.destroy();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    });
    z.on('end', () => {
      if (!settled) {
        settled = true;
        resolve(Buffer.concat(chunks, size));
      }
    });
    z.on('error', (err) => {
      if (!settled) {
        settled = true;
        reject(err);
      }
    });
    z.end(input);
  });
}

/** A gzip file (all its members), at most `maxBytes` inflated. */
export async function gunzipLimited(bytes: Uint8Array, { maxBytes }: InflateLimits): Promise<Inflated> {
  try {
    const data = await inflateCounted(createGunzip({ chunkSize: STEP }), bytes, maxBytes);
    return data === 'too_large' ? tooLarge(maxBytes) : { ok: true, files: [{ name: '', data }] };
  } catch (err) {
    return corrupt((err as Error).message);
  }
}

interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  compressedSize: number;
  localOffset: number;
}

/** The central directory's entries (no zip64, no multi-disk: a mail attachment is far below 4 GB). */
function zipEntries(b: Buffer): ZipEntry[] | string {
  let end = -1;
  for (let i = b.length - 22; i >= Math.max(0, b.length - 22 - 0xffff); i--) {
    if (b.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return 'no end of central directory';
  const count = b.readUInt16LE(end + 10);
  let p = b.readUInt32LE(end + 16);
  if (count === 0xffff || p === 0xffffffff) return 'zip64 is not supported';
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (p + 46 > end || b.readUInt32LE(p) !== 0x02014b50) return 'broken central directory';
    const flags = b.readUInt16LE(p + 8);
    const nameLength = b.readUInt16LE(p + 28);
    if (p + 46 + nameLength > end) return 'broken central directory';
    entries.push({
      name: b.toString(flags & 0x800 ? 'utf8' : 'latin1', p + 46, p + 46 + nameLength),
      flags,
      method: b.readUInt16LE(p + 10),
      compressedSize: b.readUInt32LE(p + 20),
      localOffset: b.readUInt32LE(p + 42),
    });
    p += 46 + nameLength + b.readUInt16LE(p + 30) + b.readUInt16LE(p + 32);
  }
  return entries;
}

/**
 * The accepted entries of a zip, at most `maxBytes` inflated in all. Reads the central directory
 * for where each entry's data is and how long it is compressed; what it says the data inflates to
 * is ignored (a bomb declares 1,000 bytes for 2 GB). Encrypted entries and methods other than
 * stored and deflate are skipped.
 */
export async function unzipLimited(
  bytes: Uint8Array,
  { maxBytes, maxFiles = 100, accept = () => true }: InflateLimits,
): Promise<Inflated> {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = zipEntries(b);
  if (typeof entries === 'string') return corrupt(entries);
  const wanted = entries.filter((e) => accept(e.name) && !(e.flags & 1) && (e.method === 0 || e.method === 8));
  if (wanted.length > maxFiles)
    return { ok: false, reason: 'too_many_files', detail: `${wanted.length} entries; at most ${maxFiles} are read` };
  const files: InflatedFile[] = [];
  let left = maxBytes;
  for (const e of wanted) {
    const at = e.localOffset;
    if (at + 30 > b.length || b.readUInt32LE(at) !== 0x04034b50) return corrupt(`no local header for ${e.name}`);
    const start = at + 30 + b.readUInt16LE(at + 26) + b.readUInt16LE(at + 28);
    if (start + e.compressedSize > b.length) return corrupt(`${e.name} runs past the end of the archive`);
    const raw = b.subarray(start, start + e.compressedSize);
    let data: Buffer | 'too_large';
    if (e.method === 0) data = raw.length > left ? 'too_large' : Buffer.from(raw);
    else {
      try {
        data = await inflateCounted(createInflateRaw({ chunkSize: STEP }), raw, left);
      } catch (err) {
        return corrupt(`${e.name}: ${(err as Error).message}`);
      }
    }
    if (data === 'too_large') return tooLarge(maxBytes);
    left -= data.length;
    files.push({ name: e.name, data });
  }
  return { ok: true, files };
}

// A streaming zip writer (PKWARE APPNOTE 6.3: local headers with data descriptors, deflate, a
// central directory at the end) over node:zlib's deflateRaw stream, which compresses on libuv's
// thread pool. Entries are written one after another as their bytes arrive: no entry and no
// archive is held whole in memory. No ZIP64: an archive (and each entry) stays under 4 GiB, and
// under 65,535 entries; the caller caps what it puts in (privacy/export-zip.ts).
import { once } from 'node:events';
import zlib from 'node:zlib';

const LIMIT_32 = 0xffff_ffff;
const MAX_ENTRIES = 0xffff;

export interface ZipEntry {
  /** the path inside the archive, with / between folders (written as UTF-8) */
  name: string;
  data: AsyncIterable<Buffer> | Iterable<Buffer>;
  date?: Date;
}

interface Written {
  name: Buffer;
  crc: number;
  compressed: number;
  size: number;
  offset: number;
  time: number;
  date: number;
}

/** MS-DOS time and date (local fields, two-second resolution; 1980 at the earliest). */
function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getUTCFullYear());
  return {
    time: (d.getUTCHours() << 11) | (d.getUTCMinutes() << 5) | Math.floor(d.getUTCSeconds() / 2),
    date: ((year - 1980) << 9) | ((d.getUTCMonth() + 1) << 5) | d.getUTCDate(),
  };
}

const FLAGS = 0x0008 | 0x0800; // sizes and CRC in a data descriptor; UTF-8 names
const DEFLATE = 8;
const VERSION = 20; // 2.0: deflate, data descriptors

function localHeader(e: Written): Buffer {
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(VERSION, 4);
  h.writeUInt16LE(FLAGS, 6);
  h.writeUInt16LE(DEFLATE, 8);
  h.writeUInt16LE(e.time, 10);
  h.writeUInt16LE(e.date, 12);
  // CRC and sizes (14..25) stay zero: the data descriptor after the data carries them.
  h.writeUInt16LE(e.name.length, 26);
  h.writeUInt16LE(0, 28);
  return Buffer.concat([h, e.name]);
}

function dataDescriptor(e: Written): Buffer {
  const d = Buffer.alloc(16);
  d.writeUInt32LE(0x08074b50, 0);
  d.writeUInt32LE(e.crc, 4);
  d.writeUInt32LE(e.compressed, 8);
  d.writeUInt32LE(e.size, 12);
  return d;
}

function centralHeader(e: Written): Buffer {
  const h = Buffer.alloc(46);
  h.writeUInt32LE(0x02014b50, 0);
  h.writeUInt16LE((3 << 8) | VERSION, 4); // made by: Unix, 2.0
  h.writeUInt16LE(VERSION, 6);
  h.writeUInt16LE(FLAGS, 8);
  h.writeUInt16LE(DEFLATE, 10);
  h.writeUInt16LE(e.time, 12);
  h.writeUInt16LE(e.date, 14);
  h.writeUInt32LE(e.crc, 16);
  h.writeUInt32LE(e.compressed, 20);
  h.writeUInt32LE(e.size, 24);
  h.writeUInt16LE(e.name.length, 28);
  // extra, comment, disk number, internal attributes: 0
  h.writeUInt32LE((0o100644 << 16) >>> 0, 38); // external attributes: a regular file, rw-r--r--
  h.writeUInt32LE(e.offset, 42);
  return Buffer.concat([h, e.name]);
}

function endOfCentralDirectory(count: number, size: number, offset: number): Buffer {
  const h = Buffer.alloc(22);
  h.writeUInt32LE(0x06054b50, 0);
  h.writeUInt16LE(count, 8);
  h.writeUInt16LE(count, 10);
  h.writeUInt32LE(size, 12);
  h.writeUInt32LE(offset, 16);
  return h;
}

/** One entry's data, deflated as it is read; `seen` counts the uncompressed bytes and their CRC-32. */
async function* deflated(data: ZipEntry['data'], seen: { crc: number; size: number }): AsyncGenerator<Buffer> {
  const z = zlib.createDeflateRaw({ level: 6 });
  const feed = (async () => {
    for await (const chunk of data) {
      seen.crc = zlib.crc32(chunk, seen.crc);
      seen.size += chunk.length;
      if (!z.write(chunk)) await once(z, 'drain');
    }
    z.end();
  })();
  feed.catch((err: unknown) => z.destroy(err instanceof Error ? err : new Error(String(err))));
  for await (const out of z) yield out as Buffer;
  await feed;
}

/** The archive of `entries`, as its bytes are produced. A name must not repeat (the caller's job). */
export async function* zipStream(entries: AsyncIterable<ZipEntry> | Iterable<ZipEntry>): AsyncGenerator<Buffer> {
  const written: Written[] = [];
  let offset = 0;
  for await (const entry of entries) {
    if (written.length >= MAX_ENTRIES) throw new Error(`a zip without ZIP64 holds at most ${MAX_ENTRIES} entries`);
    const name = Buffer.from(entry.name.replace(/^\/+/, ''), 'utf8');
    if (name.length === 0 || name.length > 0xffff) throw new Error('a zip entry needs a name under 64 KiB');
    const e: Written = { name, crc: 0, compressed: 0, size: 0, offset, ...dosDateTime(entry.date ?? new Date()) };
    const head = localHeader(e);
    yield head;
    offset += head.length;
    const seen = { crc: 0, size: 0 };
    for await (const out of deflated(entry.data, seen)) {
      e.compressed += out.length;
      yield out;
    }
    e.crc = seen.crc;
    e.size = seen.size;
    const tail = dataDescriptor(e);
    yield tail;
    offset += e.compressed + tail.length;
    if (e.size > LIMIT_32 || offset > LIMIT_32) throw new Error('a zip without ZIP64 stays under 4 GiB');
    written.push(e);
  }
  const start = offset;
  for (const e of written) {
    const h = centralHeader(e);
    offset += h.length;
    yield h;
  }
  if (offset > LIMIT_32) throw new Error('a zip without ZIP64 stays under 4 GiB');
  yield endOfCentralDirectory(written.length, offset - start, start);
}

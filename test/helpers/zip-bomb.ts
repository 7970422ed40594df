// Decompression bombs for tests: a raw deflate stream of N zeros built in well under a second (one
// 64 MiB segment deflated once with a full flush, which resets the window so the segment stands
// alone, then repeated: 2 GiB is 2.09 MB), wrapped as a zip whose headers lie about the size and
// as a gzip.
import { constants, deflateRawSync } from 'node:zlib';

const SEGMENT = 64 * 1024 * 1024;
let segment: Buffer | undefined;

/** A raw deflate stream that inflates to `bytes` zeros (rounded up to 64 MiB). */
export function deflatedZeros(bytes: number): Buffer {
  segment ??= deflateRawSync(Buffer.alloc(SEGMENT), {
    level: 9,
    flush: constants.Z_FULL_FLUSH,
    finishFlush: constants.Z_FULL_FLUSH,
  });
  const n = Math.ceil(bytes / SEGMENT);
  return Buffer.concat([...Array<Buffer>(n).fill(segment), Buffer.from([0x03, 0x00])]); // + an empty final block
}

/** A one-entry zip of `deflated` whose local and central headers declare `declaredSize` bytes inflated (and CRC 0). */
export function zipWithLyingHeader(name: string, deflated: Buffer, declaredSize = 1000): Buffer {
  const fname = Buffer.from(name);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(declaredSize, 22);
  local.writeUInt16LE(fname.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(declaredSize, 24);
  central.writeUInt16LE(fname.length, 28);
  central.writeUInt32LE(0, 42); // local header at 0
  const cdOffset = local.length + fname.length + deflated.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fname.length, 12);
  end.writeUInt32LE(cdOffset, 16);
  return Buffer.concat([local, fname, deflated, central, fname, end]);
}

/** A gzip member around `deflated` (its trailer's CRC and size are lies too). */
export function gzipOf(deflated: Buffer): Buffer {
  return Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]), deflated, Buffer.alloc(8)]);
}

// Quoted-printable body encoding on bytes, with output identical to nodemailer's
// qp.wrap(qp.encode(bytes), 76) for every input, soft line breaks included. nodemailer's encode
// and wrap work on strings (regexes, substr per line); with its hasLongerLines check they cost
// ~120 µs per broadcast message (~3.5 KB html + ~3 KB text) in a CPU profile of delivery.
// bench/encode.ts (2 cores, Node 20), textPart as a whole: 3.4 KB html on one line 40 -> 7 µs,
// 2.9 KB ASCII text (7bit) 29 -> 14 µs, 3.9 KB non-ASCII text 55 -> 37 µs.
// wrap() takes nodemailer's branches one for one; plain runs are found 4 bytes at a time.
// Fuzzed against nodemailer in test/mime/qp.test.ts.

const LINE = 76; // the wrap length MailComposer uses
const MARGIN = 25; // nodemailer's lineMargin, Math.floor(LINE / 3)
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SP = 0x20;
const EQ = 0x3d;

// Bytes copied as is without a second look: 0x20-0x7e except '=' (a space before a line break
// or the end is turned into =20 afterwards). TAB, CR and LF are literal too, but looked at.
const PLAIN = new Uint8Array(256);
for (let c = 0x20; c <= 0x7e; c++) PLAIN[c] = 1;
PLAIN[EQ] = 0;
// Where wrap prefers to break a line (/[ \t.,!?]/).
const PUNCT = new Uint8Array(256);
for (const c of ' \t.,!?') PUNCT[c.charCodeAt(0)] = 1;
const HEX = Buffer.from('0123456789ABCDEF', 'latin1');
const hexValue = (c: number) => (c <= 0x39 ? c - 0x30 : c - 0x37); // '0'-'9', 'A'-'F'

// Nonzero under 0x80808080 when a byte of w is below 0x20, 0x7f or above, or equal to the bytes of
// c (0x3d3d3d3d: '='; 0: nothing more). Only whether any byte is, not which, is exact.
function special(w: number, c: number): number {
  const x = w ^ c;
  return ((w - 0x20202020) & ~w) | ((x - 0x01010101) & ~x) | (w + 0x01010101) | w;
}

const SEVEN_BIT = new Uint8Array(256);
for (let c = 0x20; c <= 0x7e; c++) SEVEN_BIT[c] = 1;

const NO_WORDS = new Int32Array(0);

/** The input, with its 4-byte aligned middle as words (offset 'base' in bytes). */
function view(bytes: Uint8Array) {
  const base = (4 - (bytes.byteOffset & 3)) & 3;
  const words =
    base > bytes.length ? NO_WORDS : new Int32Array(bytes.buffer, bytes.byteOffset + base, (bytes.length - base) >> 2);
  return { bytes, words, base };
}

/** Index of the first byte in [i, limit) that is not PLAIN (eq '=' x4) or SEVEN_BIT (eq 0), or limit. */
function skipPlain(v: ReturnType<typeof view>, i: number, limit: number, eq: number): number {
  const { bytes, words, base } = v;
  const table = eq ? PLAIN : SEVEN_BIT;
  while (i < limit && ((i - base) & 3) !== 0) {
    if (table[bytes[i]] !== 1) return i;
    i++;
  }
  if (i >= base) {
    let k = (i - base) >> 2;
    const kEnd = Math.min(words.length, (limit - base) >> 2);
    while (k < kEnd && (special(words[k], eq) & 0x80808080) === 0) k++;
    if (k > (i - base) >> 2) i = base + (k << 2);
  }
  while (i < limit && table[bytes[i]] === 1) i++;
  return i;
}

/**
 * True when the text can go as 7bit, the answer of mime-fast's former check: only printable
 * ASCII, TAB, CR and LF, no line (between CRs/LFs) over 76, and at most 128 KiB (nodemailer's
 * hasLongerLines does not look at longer strings and says yes).
 */
export function fitsSevenBit(bytes: Uint8Array): boolean {
  const len = bytes.length;
  if (len > 128 * 1024) return false;
  const v = view(bytes);
  let lineStart = 0;
  for (let i = 0; ; i++) {
    i = skipPlain(v, i, Math.min(len, lineStart + LINE + 1), 0);
    if (i - lineStart > LINE) return false;
    if (i === len) return true;
    const c = bytes[i];
    if (c === CR || c === LF) lineStart = i + 1;
    else if (c !== TAB) return false;
  }
}

/**
 * fitsSevenBit for a string, without encoding it first: the same answer as
 * fitsSevenBit(Buffer.from(s, 'utf8')). Any character from U+0080 on encodes to bytes that are
 * not 7bit, so for the strings this can say yes to, characters and bytes are the same.
 */
export function fitsSevenBitText(s: string): boolean {
  const len = s.length;
  if (len > 128 * 1024) return false;
  let lineStart = 0;
  for (let i = 0; i < len; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) {
      if (i - lineStart >= LINE) return false;
    } else if (c === CR || c === LF) lineStart = i + 1;
    else if (c === TAB) {
      if (i - lineStart >= LINE) return false;
    } else return false;
  }
  return len - lineStart <= LINE;
}

// Work space reused between calls (the functions are synchronous); large ones are not kept.
const KEEP = 256 * 1024;
let work: Buffer = Buffer.allocUnsafe(16 * 1024);
let marks: Int32Array = new Int32Array(4 * 1024); // offsets in the encoded bytes: CRs and LFs, then soft breaks
const space = (size: number) => (size <= work.length ? work : Buffer.allocUnsafe(Math.max(size, work.length * 2)));

/** nodemailer's qp.wrap(qp.encode(bytes), 76), byte for byte. */
export function encodeQuotedPrintable(bytes: Uint8Array): string {
  const len = bytes.length;
  const e = space(len * 3);
  // CRs and LFs plus soft breaks: a soft-broken line holds an input byte's encoding, or a CR
  // or LF, so there are fewer than 2 * len + 1.
  let breaks = marks;
  if (breaks.length < 2 * len + 1) {
    breaks = new Int32Array(2 * len + 1);
    if (len <= KEEP) marks = breaks;
  }
  let n = 0; // encoded so far
  let lines = 0; // CRs and LFs so far, their offsets in breaks
  const v = view(bytes);
  for (let i = 0; i < len; ) {
    const c = bytes[i++];
    if (PLAIN[c] === 1) {
      const j = skipPlain(v, i, len, 0x3d3d3d3d);
      e[n++] = c;
      if (j - i > 64) {
        e.set(bytes.subarray(i, j), n);
        n += j - i;
        i = j;
      } else {
        while (i < j) e[n++] = bytes[i++];
      }
    } else if (c === CR || c === LF) {
      // the space before a line break is encoded
      if (n > 0 && e[n - 1] === SP) n = escape(e, n - 1, SP);
      breaks[lines++] = n;
      e[n++] = c;
    } else if (c === TAB && i < len && bytes[i] !== CR && bytes[i] !== LF) {
      e[n++] = c;
    } else {
      n = escape(e, n, c);
    }
  }
  if (n > 0 && e[n - 1] === SP) n = escape(e, n - 1, SP);
  if (e.length <= KEEP) work = e;
  return n <= LINE ? e.toString('latin1', 0, n) : wrap(e, n, breaks, lines);
}

function escape(e: Buffer, n: number, c: number): number {
  e[n] = EQ;
  e[n + 1] = HEX[c >> 4];
  e[n + 2] = HEX[c & 15];
  return n + 3;
}

/** nodemailer's qp.wrap(str, 76) on the encoded bytes e[0, n), CR and LF at breaks[0, lines). */
function wrap(e: Buffer, n: number, breaks: Int32Array, lines: number): string {
  let soft = 0; // soft breaks, kept in breaks after the CRs and LFs
  let k = 0; // the first CR or LF at or after pos
  for (let pos = 0; pos < n; ) {
    const wend = pos + LINE < n ? pos + LINE : n; // the window: str.substr(pos, 76)
    const wlen = wend - pos;
    while (k < lines && breaks[k] < pos) k++;
    let end = -1;
    if (k < lines && breaks[k] < wend) {
      // the window's first CRLF ends the line
      let j = k;
      for (; j < lines && breaks[j] < wend; j++) {
        const b = breaks[j];
        if (b + 1 < wend && e[b] === CR && e[b + 1] === LF) {
          end = b + 2;
          break;
        }
      }
      // so does an LF at the window's end
      if (end < 0 && e[wend - 1] === LF) end = wend;
      // or the window's last CR or LF, if an LF in the last MARGIN characters (/\n.*?$/)
      if (end < 0) {
        const last = breaks[j - 1];
        if (e[last] === LF && last >= wend - (wlen < MARGIN ? wlen : MARGIN)) end = last + 1;
      }
    }
    if (end >= 0) {
      pos = end;
      continue;
    }
    let lineEnd = wend;
    let cut = false;
    if (wlen > LINE - MARGIN) {
      // after the last of ' \t.,!?' in the last MARGIN characters
      for (let i = wend - 1; i >= wend - MARGIN; i--) {
        if (PUNCT[e[i]] === 1) {
          lineEnd = i + 1;
          cut = true;
          break;
        }
      }
    }
    if (!cut && (e[wend - 1] === EQ || (wlen >= 2 && e[wend - 2] === EQ) || (wlen >= 3 && e[wend - 3] === EQ))) {
      // an escape cut by the window goes to the next line
      if (e[wend - 1] === EQ) lineEnd = wend - 1;
      else if (e[wend - 2] === EQ) lineEnd = wend - 2;
      // and so do the continuation bytes and lead byte of a UTF-8 sequence
      for (;;) {
        const ll = lineEnd - pos;
        if (ll <= 3 || ll >= n - pos) break;
        if (ll <= 12 && ll % 3 === 0 && onlyEscapes(e, pos, lineEnd)) break;
        if (e[lineEnd - 3] !== EQ) break;
        const code = (hexValue(e[lineEnd - 2]) << 4) | hexValue(e[lineEnd - 1]);
        if (code < 0x80) break;
        lineEnd -= 3;
        if (code >= 0xc0) break;
      }
    }
    if (lineEnd === pos) lineEnd = wend;
    if (lineEnd < n && e[lineEnd - 1] !== LF) {
      if (lineEnd - pos === LINE) lineEnd -= e[lineEnd - 3] === EQ ? 3 : 1;
      breaks[lines + soft++] = lineEnd;
    }
    pos = lineEnd;
  }
  if (soft === 0) return e.toString('latin1', 0, n);
  // Insert '=\r\n' at each soft break: from the last to the first, the bytes after a break move
  // right by 3 for it and each before it.
  let out = e;
  if (n + 3 * soft > e.length) {
    out = Buffer.allocUnsafe(n + 3 * soft);
    e.copy(out, 0, 0, n);
    if (out.length <= KEEP) work = out;
  }
  let end = n;
  for (let s = soft - 1; s >= 0; s--) {
    const at = breaks[lines + s];
    out.copyWithin(at + 3 * (s + 1), at, end);
    out[at + 3 * s] = EQ;
    out[at + 3 * s + 1] = CR;
    out[at + 3 * s + 2] = LF;
    end = at;
  }
  return out.toString('latin1', 0, n + 3 * soft);
}

function onlyEscapes(e: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i += 3) if (e[i] !== EQ) return false;
  return true;
}

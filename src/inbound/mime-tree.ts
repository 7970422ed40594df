// A small, bounded MIME tree reader for reports that reach our return paths (DSNs, ARF, plain
// bounce messages): header fields, content types and decoded part bodies, with message/rfc822
// parts parsed as nested messages. It reads bytes already in memory and never throws on bad
// input; received mail for users goes through mailparser as a stream instead (parse.ts).
import libmime from 'libmime';

export interface MimePart {
  /** lowercase field name -> unfolded raw values, in order */
  headers: Map<string, string[]>;
  contentType: string; // lowercase, 'text/plain' when absent
  params: Record<string, string>;
  body: Buffer; // transfer-decoded
  children: MimePart[];
}

const MAX_DEPTH = 8;
const MAX_PARTS = 200;

export function headerValue(p: MimePart, name: string): string | undefined {
  return p.headers.get(name)?.[0];
}

/** Parses a header section (unfolding continuation lines). */
export function parseHeaderBlock(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  let current: { name: string; value: string } | undefined;
  const flush = () => {
    if (!current) return;
    const list = out.get(current.name) ?? [];
    list.push(current.value.trim());
    out.set(current.name, list);
    current = undefined;
  };
  for (const line of text.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && current) {
      current.value += ` ${line.trim()}`;
      continue;
    }
    flush();
    const i = line.indexOf(':');
    if (i > 0) current = { name: line.slice(0, i).trim().toLowerCase(), value: line.slice(i + 1) };
  }
  flush();
  return out;
}

function splitHeadBody(buf: Buffer): { head: string; body: Buffer } {
  const crlf = buf.indexOf('\r\n\r\n');
  const lf = buf.indexOf('\n\n');
  if (crlf === -1 && lf === -1) return { head: buf.toString('latin1'), body: Buffer.alloc(0) };
  const [at, len] = crlf !== -1 && (lf === -1 || crlf < lf) ? [crlf, 4] : [lf, 2];
  return { head: buf.subarray(0, at).toString('utf8'), body: buf.subarray(at + len) };
}

function decodeQuotedPrintable(s: string): Buffer {
  const bytes: number[] = [];
  const text = s.replace(/=\r?\n/g, '');
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '=' && /^[0-9a-f]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(...Buffer.from(c, 'utf8'));
  }
  return Buffer.from(bytes);
}

function decodeBody(body: Buffer, encoding: string | undefined): Buffer {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case 'base64':
      return Buffer.from(body.toString('latin1').replace(/[^A-Za-z0-9+/=]/g, ''), 'base64');
    case 'quoted-printable':
      return decodeQuotedPrintable(body.toString('latin1'));
    default:
      return body;
  }
}

function splitMultipart(body: Buffer, boundary: string): Buffer[] {
  const text = body.toString('latin1');
  const delim = `--${boundary}`;
  const parts: Buffer[] = [];
  let start = -1;
  let pos = 0;
  while (pos <= text.length && parts.length < MAX_PARTS) {
    const i = text.indexOf(delim, pos);
    if (i === -1) break;
    const atLineStart = i === 0 || text[i - 1] === '\n';
    const after = text.slice(i + delim.length, i + delim.length + 2);
    pos = i + delim.length;
    if (!atLineStart) continue;
    if (start !== -1) {
      const end = text[i - 2] === '\r' ? i - 2 : i - 1; // the line break before the delimiter belongs to it
      parts.push(body.subarray(start, Math.max(start, end)));
    }
    if (after === '--') return parts;
    const eol = text.indexOf('\n', pos);
    if (eol === -1) break;
    start = eol + 1;
    pos = start;
  }
  if (start !== -1 && parts.length < MAX_PARTS) parts.push(body.subarray(start)); // unterminated: keep what came
  return parts;
}

export function parseMime(buf: Buffer, depth = 0): MimePart {
  const { head, body: rawBody } = splitHeadBody(buf);
  const headers = parseHeaderBlock(head);
  let contentType = 'text/plain';
  let params: Record<string, string> = {};
  const ct = headers.get('content-type')?.[0];
  if (ct) {
    try {
      const parsed = libmime.parseHeaderValue(ct);
      contentType = parsed.value.toLowerCase() || 'text/plain';
      params = Object.fromEntries(Object.entries(parsed.params).map(([k, v]) => [k.toLowerCase(), String(v)]));
    } catch {
      /* keep text/plain */
    }
  }
  const part: MimePart = { headers, contentType, params, body: rawBody, children: [] };
  if (depth >= MAX_DEPTH) return part;
  if (contentType.startsWith('multipart/') && params.boundary) {
    part.children = splitMultipart(rawBody, params.boundary).map((b) => parseMime(b, depth + 1));
    return part;
  }
  part.body = decodeBody(rawBody, headers.get('content-transfer-encoding')?.[0]);
  if (contentType === 'message/rfc822' || contentType === 'message/global')
    part.children = [parseMime(part.body, depth + 1)];
  return part;
}

/** Every part, depth first. */
export function* walk(p: MimePart): Generator<MimePart> {
  yield p;
  for (const c of p.children) yield* walk(c);
}

/** The text of a part in its charset (UTF-8 when unnamed or unknown). */
export function partText(p: MimePart): string {
  const cs = (p.params.charset ?? 'utf-8').toLowerCase();
  try {
    return new TextDecoder(cs === 'us-ascii' ? 'utf-8' : cs).decode(p.body);
  } catch {
    return p.body.toString('utf8');
  }
}

export const decodeWords = (v: string): string => {
  try {
    return libmime.decodeWords(v);
  } catch {
    return v;
  }
};

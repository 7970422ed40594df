// Parses a received message as a stream (mailparser's MailParser, not simpleParser, which holds
// attachments in memory): the header fields as Resend shows them (lowercase names, decoded
// values), addresses, text and HTML (cid: references kept), and each attachment handed to a
// sink as a stream. Also the cheap well-formedness check run before anything is stored.
import type { Readable } from 'node:stream';
import { MailParser, type AddressObject, type HeaderLines } from 'mailparser';
import { decodeWords } from './mime-tree.js';

export interface AttachmentMeta {
  position: number;
  filename: string | null;
  contentType: string;
  contentId: string | null; // without angle brackets
  contentDisposition: 'inline' | 'attachment';
}

export interface ParsedInbound {
  headers: Record<string, string | string[]>;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  replyTo: string[];
  subject: string;
  messageId: string | null;
  html: string | null;
  text: string | null;
}

/** Consumes one attachment's content; returns its size in bytes. */
export type AttachmentSink = (meta: AttachmentMeta, content: Readable) => Promise<number>;

const addresses = (v: unknown): string[] => {
  const out: string[] = [];
  const walk = (list: { address?: string; group?: unknown[] }[]) => {
    for (const a of list) {
      if (a.group) walk(a.group as { address?: string }[]);
      else if (a.address) out.push(a.address);
    }
  };
  for (const obj of ([] as AddressObject[]).concat((v as AddressObject | AddressObject[] | undefined) ?? []))
    walk(obj.value ?? []);
  return out;
};

function headerMap(lines: HeaderLines): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const { key, line } of lines) {
    const value = decodeWords(
      line
        .slice(line.indexOf(':') + 1)
        .replace(/\r?\n[ \t]+/g, ' ')
        .trim(),
    );
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

export async function parseInbound(
  source: Readable,
  sink: AttachmentSink,
): Promise<ParsedInbound & { attachmentSizes: number[]; attachments: AttachmentMeta[] }> {
  const parser = new MailParser({
    skipImageLinks: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    keepDeliveryStatus: true,
    // Each attachment is hashed as it streams; nothing reads the checksum, so the cheapest hash
    // on this hardware (SHA-1 with the CPU's SHA instructions: 0.6 ms per MB; MD5 1.5 ms).
    checksumAlgo: 'sha1',
  });
  let lines: HeaderLines = [];
  let html: string | null = null;
  let text: string | null = null;
  const attachments: AttachmentMeta[] = [];
  const pending: Promise<number>[] = [];
  parser.on('headerLines', (l: HeaderLines) => {
    if (!lines.length) lines = l;
  });
  parser.on('data', (data: Record<string, any>) => {
    if (data.type === 'text') {
      html = typeof data.html === 'string' ? data.html : null;
      text = typeof data.text === 'string' ? data.text : null;
      return;
    }
    const meta: AttachmentMeta = {
      position: attachments.length,
      filename: data.filename ?? null,
      contentType: String(data.contentType ?? 'application/octet-stream').toLowerCase(),
      contentId: data.cid ?? null,
      contentDisposition:
        data.contentDisposition === 'inline' || (data.related && !data.contentDisposition) ? 'inline' : 'attachment',
    };
    attachments.push(meta);
    const content = data.content as Readable;
    // The sink reads the stream; releasing when it is done lets the parser go on (backpressure).
    const stored = sink(meta, content).finally(() => data.release?.());
    stored.catch(() => undefined); // awaited below, or nobody's once the parse has failed: never unhandled
    pending.push(stored);
  });
  const done = new Promise<void>((resolve, reject) => {
    parser.once('end', resolve);
    parser.once('error', reject);
    source.once('error', reject);
  });
  source.pipe(parser);
  try {
    await done;
  } catch (err) {
    parser.destroy();
    throw err;
  }
  const sizes = await Promise.all(pending);
  const h = parser as unknown as Record<string, unknown>;
  const fromList = addresses(h.from);
  const mid = typeof h.messageId === 'string' ? h.messageId.trim() : null;
  return {
    headers: headerMap(lines),
    from: fromList[0] ?? '',
    to: addresses(h.to),
    cc: addresses(h.cc),
    bcc: addresses(h.bcc),
    replyTo: addresses(h.replyTo),
    subject: typeof h.subject === 'string' ? h.subject : '',
    messageId: mid ? (mid.startsWith('<') ? mid : `<${mid}>`) : null,
    html,
    text,
    attachments,
    attachmentSizes: sizes,
  };
}

const FIELD_LINE = /^[\x21-\x39\x3b-\x7e]+[ \t]*:/;

/**
 * Why the message is not a message we can take (RFC 5322 header section), or null. Lenient like
 * real MTAs about bodies; strict about what would make the stored record meaningless: a header
 * section that does not parse, NUL bytes in it, or no From field.
 */
export function malformedReason(head: Buffer): string | null {
  let end = head.indexOf('\r\n\r\n');
  const lf = head.indexOf('\n\n');
  if (lf !== -1 && (end === -1 || lf < end)) end = lf;
  const section = (end === -1 ? head : head.subarray(0, end)).toString('latin1');
  if (end === -1 && head.length >= 256 * 1024) return 'the header section does not end';
  if (section.includes('\0')) return 'NUL byte in the header section';
  const lines = section.split(/\r?\n/);
  if (!lines[0] || !FIELD_LINE.test(lines[0])) return 'the message does not start with a header field';
  let hasFrom = false;
  for (const line of lines) {
    if (line === '') continue;
    if (line[0] === ' ' || line[0] === '\t') continue;
    if (!FIELD_LINE.test(line)) return `not a header field: ${JSON.stringify(line.slice(0, 60))}`;
    if (/^from[ \t]*:/i.test(line)) hasFrom = true;
  }
  return hasFrom ? null : 'no From header field';
}

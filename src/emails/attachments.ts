// Attachments of a send request: normalizes the three wire encodings of `content` (base64 string,
// int array, Node's {"type":"Buffer"}), `path` URLs, filename/content type/content id; and resolves
// `path` attachments into bytes through the SSRF-safe fetcher. Pure except resolveAttachments.
import { detectMimeType } from 'nodemailer/lib/mime-funcs/index.js';
import { AppError, invalidField } from '../errors.js';
import { UNSAFE_HEADER_CHARS } from '../mime/addresses.js';
import { fetchAttachment, type FetchOptions } from './attachment-fetch.js';

export { fetchAttachment, type FetchOptions, type Fetched } from './attachment-fetch.js';

interface AttachmentMeta {
  filename?: string;
  /** Explicit `content_type`, else derived from the filename; undefined for a `path` whose type is unknown yet. */
  contentType?: string;
  /** Inline image id (`content_id` or legacy `inline_content_id`), without angle brackets. */
  contentId?: string;
}
export type Attachment = AttachmentMeta &
  ({ content: Buffer; path?: undefined } | { path: string; content?: undefined });
export type ResolvedAttachment = AttachmentMeta & { content: Buffer; contentType: string };

export const MAX_FILENAME = 255;
export const MAX_CONTENT_ID = 127; // "must be less than 128 characters" [DOCS attachments]
const MIME_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]+|[A-Za-z0-9_-]+)={0,2}$/;

const bad = (message: string) => new AppError('invalid_attachment', message);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (v: unknown) => v !== undefined && v !== null && v !== '';

/** Bytes as base64 grows them (no line breaks): the unit of the 40 MB limit. */
export const base64Size = (bytes: number): number => Math.ceil(bytes / 3) * 4;

function bytesFromArray(data: unknown[], at: string): Buffer {
  for (const b of data) {
    if (!Number.isInteger(b) || (b as number) < 0 || (b as number) > 255)
      throw bad(`${at} \`content\` arrays must hold integers from 0 to 255.`);
  }
  return Buffer.from(data as number[]);
}

/** Decodes `content` in any of its three wire forms. */
export function decodeContent(content: unknown, at = 'attachments[0]'): Buffer {
  if (typeof content === 'string') {
    const s = content.replace(/\s+/g, '');
    if (!BASE64.test(s) || s.replace(/=+$/, '').length % 4 === 1)
      throw bad(`Attachment ${at} \`content\` must be base64-encoded.`);
    return Buffer.from(s, s.includes('-') || s.includes('_') ? 'base64url' : 'base64');
  }
  if (Array.isArray(content)) return bytesFromArray(content, `Attachment ${at}`);
  if (isObject(content) && content.type === 'Buffer' && Array.isArray(content.data))
    return bytesFromArray(content.data, `Attachment ${at}`);
  throw bad(
    `Attachment ${at} \`content\` must be a base64 string, an array of bytes or {"type":"Buffer","data":[...]}.`,
  );
}

function checkHeaderSafe(field: string, v: string): string {
  if (UNSAFE_HEADER_CHARS.test(v)) throw invalidField(field, 'line breaks and control characters are not allowed.');
  return v;
}

/** The last path segment of a URL, decoded, when it looks like a usable filename. */
function filenameFromUrl(u: URL): string | undefined {
  const last = u.pathname.split('/').pop() ?? '';
  let name: string;
  try {
    name = decodeURIComponent(last);
  } catch {
    return undefined;
  }
  return name && name.length <= MAX_FILENAME && !UNSAFE_HEADER_CHARS.test(name) ? name : undefined;
}

/** Normalizes one wire attachment; `index` only names it in errors. */
export function normalizeAttachment(raw: unknown, index: number): Attachment {
  const at = `attachments[${index}]`;
  if (!isObject(raw)) throw bad(`Attachment ${at} must be an object.`);
  const hasContent = present(raw.content);
  const hasPath = present(raw.path);
  if (hasContent === hasPath) throw new AppError('invalid_attachment');

  let filename: string | undefined;
  if (raw.filename !== undefined && raw.filename !== null && raw.filename !== false) {
    if (typeof raw.filename !== 'string') throw bad(`Attachment ${at} \`filename\` must be a string.`);
    checkHeaderSafe(`${at}.filename`, raw.filename);
    if (raw.filename.length > MAX_FILENAME)
      throw bad(`Attachment ${at} \`filename\` must be at most ${MAX_FILENAME} characters.`);
    filename = raw.filename.trim() || undefined;
  }

  let contentType: string | undefined;
  if (present(raw.content_type)) {
    if (typeof raw.content_type !== 'string') throw bad(`Attachment ${at} \`content_type\` must be a string.`);
    checkHeaderSafe(`${at}.content_type`, raw.content_type);
    const type = raw.content_type.split(';')[0].trim();
    if (!MIME_TYPE.test(type))
      throw bad(`Attachment ${at} \`content_type\` must be a MIME type like \`application/pdf\`.`);
    contentType = type.toLowerCase();
  }

  let contentId: string | undefined;
  const cid = present(raw.content_id) ? raw.content_id : raw.inline_content_id;
  if (present(cid)) {
    if (typeof cid !== 'string') throw bad(`Attachment ${at} \`content_id\` must be a string.`);
    checkHeaderSafe(`${at}.content_id`, cid);
    const bare = cid.trim().replace(/^<(.*)>$/, '$1');
    if (bare.length > MAX_CONTENT_ID) throw bad(`Attachment ${at} \`content_id\` must be less than 128 characters.`);
    if (!/^[\x21-\x7e]+$/.test(bare) || /[<>"\\]/.test(bare))
      throw bad(
        `Attachment ${at} \`content_id\` may only hold printable ASCII without spaces, quotes or angle brackets.`,
      );
    contentId = bare;
  }

  const fromName = (name?: string) => {
    const t = name ? detectMimeType(name) : undefined;
    return t && t !== 'application/octet-stream' ? t : undefined;
  };
  const meta = { ...(filename ? { filename } : {}), ...(contentId ? { contentId } : {}) };

  if (hasContent) {
    const content = decodeContent(raw.content, at);
    return { ...meta, contentType: contentType ?? fromName(filename) ?? 'application/octet-stream', content };
  }
  if (typeof raw.path !== 'string') throw bad(`Attachment ${at} \`path\` must be a URL string.`);
  let url: URL;
  try {
    url = new URL(raw.path);
  } catch {
    throw bad(`Attachment ${at} \`path\` must be a valid http or https URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw bad(`Attachment ${at} \`path\` must be an http or https URL.`);
  const name = filename ?? filenameFromUrl(url);
  const type = contentType ?? fromName(name);
  return { ...meta, ...(name ? { filename: name } : {}), ...(type ? { contentType: type } : {}), path: url.href };
}

/** Normalizes the `attachments` field (absent/null → []). */
export function normalizeAttachments(v: unknown): Attachment[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidField('attachments', 'must be an array.');
  return v.map((a, i) => normalizeAttachment(a, i));
}

/**
 * Fetches `path` attachments (sequentially, sharing one byte budget) so the list can be composed.
 * `opts.maxBytes` is the budget for all fetched files together.
 */
export async function resolveAttachments(list: Attachment[], opts: FetchOptions): Promise<ResolvedAttachment[]> {
  let budget = opts.maxBytes;
  const out: ResolvedAttachment[] = [];
  for (const a of list) {
    if (a.content) {
      out.push({ ...a, contentType: a.contentType ?? 'application/octet-stream', content: a.content });
      continue;
    }
    const got = await fetchAttachment(a.path!, { ...opts, maxBytes: budget });
    budget -= got.content.length;
    const served = got.contentType?.split(';')[0].trim().toLowerCase();
    const contentType = a.contentType ?? (served && MIME_TYPE.test(served) ? served : 'application/octet-stream');
    const { path: _path, ...meta } = a;
    out.push({ ...meta, contentType, content: got.content });
  }
  return out;
}

// The wire shapes of received mail (resend-compat.md 1.8): ISO timestamps, bare `from`, lowercase
// header names, signed download links, and `html` with inline images as data: URIs (default) or
// with their cid: references kept (`html_format=cid`).
import type { Queryable } from '../store/db.js';
import { blobRead } from '../store/blobs.js';
import type { ReceivedAttachmentRow, ReceivedListItem } from '../store/received-emails.js';
import type { DownloadLinks } from './download-links.js';

const INLINE_IMAGES_MAX_BYTES = 10 * 1024 * 1024; // beyond this, cid: references stay (as mailparser's simpleParser does)
const orNull = (a: string[]) => (a.length ? a : null);

export function listItemView(r: ReceivedListItem) {
  return {
    id: r.id,
    to: r.to,
    from: r.from,
    created_at: new Date(r.created_at).toISOString(),
    subject: r.subject,
    bcc: orNull(r.bcc),
    cc: orNull(r.cc),
    reply_to: orNull(r.reply_to),
    received_for: r.received_for,
    message_id: r.message_id,
    attachments: r.attachments,
  };
}

/** Repeated fields (Received) are joined by newlines: SDKs type `headers` as a string map. */
export const headersView = (h: Record<string, string | string[]>) =>
  Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Array.isArray(v) ? v.join('\n') : v]));

async function inlineImages(db: Queryable, html: string, atts: ReceivedAttachmentRow[]): Promise<string> {
  let budget = INLINE_IMAGES_MAX_BYTES;
  const uris = new Map<string, string>();
  for (const a of atts) {
    if (
      !a.content_id ||
      !a.blob_id ||
      !/^image\//.test(a.content_type) ||
      !html.includes(`cid:${a.content_id}`) ||
      a.size > budget
    )
      continue;
    budget -= a.size;
    uris.set(a.content_id, `data:${a.content_type};base64,${(await blobRead(db, a.blob_id)).toString('base64')}`);
  }
  return uris.size ? html.replace(/\bcid:([^'"\s)>]{1,256})/g, (m, cid: string) => uris.get(cid) ?? m) : html;
}

export async function detailView(
  db: Queryable,
  links: DownloadLinks,
  r: ReceivedListItem & {
    html: string | null;
    text: string | null;
    headers: Record<string, string | string[]>;
    authentication: Record<string, string> | null;
    raw_blob: string | null;
  },
  atts: ReceivedAttachmentRow[],
  htmlFormat: 'data_uri' | 'cid',
) {
  const html = r.html !== null && htmlFormat === 'data_uri' ? await inlineImages(db, r.html, atts) : r.html;
  return {
    object: 'email',
    id: r.id,
    to: r.to,
    from: r.from,
    created_at: new Date(r.created_at).toISOString(),
    subject: r.subject,
    html,
    html_format: htmlFormat,
    text: r.text,
    headers: headersView(r.headers),
    bcc: r.bcc,
    cc: r.cc,
    reply_to: r.reply_to,
    received_for: r.received_for,
    authentication: r.authentication
      ? {
          spf: r.authentication.spf,
          dkim: r.authentication.dkim,
          dmarc: r.authentication.dmarc,
          arc: r.authentication.arc,
        }
      : null,
    message_id: r.message_id,
    raw: r.raw_blob ? links.link('raw', r.id) : null,
    attachments: r.attachments,
  };
}

export function attachmentView(a: ReceivedAttachmentRow, links: DownloadLinks) {
  return {
    object: 'attachment',
    id: a.id,
    filename: a.filename ?? undefined,
    size: Number(a.size),
    content_type: a.content_type,
    content_disposition: a.content_disposition,
    content_id: a.content_id ?? undefined,
    ...(a.blob_id ? links.link('attachment', a.id) : { download_url: null, expires_at: null }),
  };
}

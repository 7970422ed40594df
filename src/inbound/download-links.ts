// Signed, expiring links: received mail (the raw message, each attachment), attachments of sent
// mail, an email's public share page, and a data-subject export (privacy/). The
// link itself is the credential (Resend's `download_url`), so a client such as the SDK's
// `emails.receiving.forward()` can fetch it without an API key. HMAC-SHA256 under a key derived
// from the instance secret for this purpose only; verified without a database read.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

export const LINK_TTL_MS = 3600_000;
export type DownloadKind = 'raw' | 'attachment' | 'sent-attachment' | 'share' | 'privacy-export';
/** Where each kind is served (the signature covers kind, id and expiry, never the path). */
const PATHS: Record<DownloadKind, (id: string) => string> = {
  raw: (id) => `/inbound/raw/${id}`,
  attachment: (id) => `/inbound/attachment/${id}`,
  'sent-attachment': (id) => `/files/sent/${id}`,
  share: (id) => `/share/${id}`,
  'privacy-export': (id) => `/privacy/exports/${id}/download`,
};

export class DownloadLinks {
  private readonly key: Buffer;
  constructor(
    instanceSecret: string,
    private readonly publicUrl: string,
  ) {
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(instanceSecret, 'utf8'), Buffer.alloc(0), 'mailroom-inbound-downloads', 32),
    );
  }

  private sig(kind: DownloadKind, id: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${kind}:${id}:${expires}`).digest('base64url');
  }

  link(
    kind: DownloadKind,
    id: string,
    now = Date.now(),
    ttlMs = LINK_TTL_MS,
  ): { download_url: string; expires_at: string } {
    const expires = Math.floor((now + ttlMs) / 1000);
    return {
      download_url: `${this.publicUrl}${PATHS[kind](id)}?expires=${expires}&signature=${this.sig(kind, id, expires)}`,
      expires_at: new Date(expires * 1000).toISOString(),
    };
  }

  valid(
    kind: DownloadKind,
    id: string,
    expires: string | undefined,
    signature: string | undefined,
    now = Date.now(),
  ): boolean {
    if (!expires || !signature || !/^\d{1,12}$/.test(expires) || Number(expires) * 1000 < now) return false;
    const want = Buffer.from(this.sig(kind, id, Number(expires)));
    const got = Buffer.from(signature);
    return got.length === want.length && timingSafeEqual(got, want);
  }
}

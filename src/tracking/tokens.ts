// Signed tracking tokens, verified without a database read: the open token carries the email id,
// the click token the email id and the link, each with a 128-bit HMAC-SHA256 tag under a key
// derived (HKDF) from the instance secret for this purpose only. An unsigned or altered token is
// refused, so /t/c/ can never be used as an open redirect.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { uuidBytes, uuidOfBytes as uuidOf } from '../lib/ids.js';

const TAG_BYTES = 16;

export class TrackingSigner {
  private readonly key: Buffer;
  constructor(instanceSecret: string) {
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(instanceSecret, 'utf8'), Buffer.alloc(0), 'mailroom-tracking-links', 32),
    );
  }

  private tag(kind: 'o' | 'c', payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(kind).update(payload).digest().subarray(0, TAG_BYTES);
  }

  private sign(kind: 'o' | 'c', payload: Buffer): string {
    return `${payload.toString('base64url')}.${this.tag(kind, payload).toString('base64url')}`;
  }

  private verify(kind: 'o' | 'c', token: string): Buffer | null {
    const dot = token.indexOf('.');
    if (dot <= 0 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) return null;
    const payload = Buffer.from(token.slice(0, dot), 'base64url');
    const tag = Buffer.from(token.slice(dot + 1), 'base64url');
    if (payload.length < 16 || tag.length !== TAG_BYTES || !timingSafeEqual(tag, this.tag(kind, payload))) return null;
    // One spelling per token: base64 ignores a final character's spare bits, we do not.
    if (tag.toString('base64url') !== token.slice(dot + 1) || payload.toString('base64url') !== token.slice(0, dot))
      return null;
    return payload;
  }

  openToken(emailId: string): string {
    return this.sign('o', uuidBytes(emailId));
  }

  clickToken(emailId: string, url: string): string {
    return this.sign('c', Buffer.concat([uuidBytes(emailId), Buffer.from(url, 'utf8')]));
  }

  verifyOpen(token: string): string | null {
    const p = this.verify('o', token);
    return p && p.length === 16 ? uuidOf(p) : null;
  }

  verifyClick(token: string): { emailId: string; url: string } | null {
    const p = this.verify('c', token);
    if (!p) return null;
    const url = p.subarray(16).toString('utf8');
    return /^https?:\/\//i.test(url) ? { emailId: uuidOf(p.subarray(0, 16)), url } : null;
  }
}

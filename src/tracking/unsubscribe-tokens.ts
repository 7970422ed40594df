// Unsubscribe tokens (RFC 8058 one-click, the preference page, the mailto address): one token per
// email and recipient, verified without a database read, and the List-* headers that carry it.
// Token = base32 (lowercase, no padding) of version(1) | email id(16) | recipient ordinal(1) |
// HMAC-SHA256 tag truncated to 80 bits, under a key derived (HKDF) from the instance secret for this
// purpose only: 28 bytes → 45 characters, so `unsubscribe+<token>` (57) fits a 64-octet local part,
// and a case-insensitive alphabet survives MTAs that change the case of local parts. The ordinal is
// the recipient's place among the email's distinct recipients (to, cc, bcc, lowercased, first
// occurrence). Tokens carry no expiry: a link in an old email must keep working (they stop only if
// MAILROOM_SECRET_KEY changes, or the email's row is gone).
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { BASE32_LOWER, base32Decode, base32Encode } from '../lib/base32.js';
import { uuidBytes, uuidOfBytes as uuidOf } from '../lib/ids.js';
import { TtlCache } from '../lib/ttl-cache.js';

const VERSION = 1;
const TAG_BYTES = 10;
const PAYLOAD_BYTES = 18;
export const TOKEN_LENGTH = Math.ceil(((PAYLOAD_BYTES + TAG_BYTES) * 8) / 5); // 45
export const MAILTO_LOCAL_PREFIX = 'unsubscribe+';
/** The largest recipient ordinal a token can name (an email has at most 150 recipients). */
export const MAX_ORDINAL = 255;

export interface UnsubscribeTarget {
  emailId: string;
  /** index among the email's distinct recipients (see recipientOrdinal) */
  ordinal: number;
}

/** The distinct recipients of an email in token order: to, cc, bcc, lowercased, first occurrence. */
export function distinctRecipients(to: string[], cc: string[], bcc: string[]): string[] {
  return [...new Set([...to, ...cc, ...bcc].map((a) => a.toLowerCase()))];
}

export class UnsubscribeSigner {
  private readonly key: Buffer;
  private readonly recent = new TtlCache<string>(60_000, 1_000); // the tokens of the copies being delivered
  /** `baseUrl`: MAILROOM_PUBLIC_URL without a trailing slash. */
  constructor(
    instanceSecret: string,
    private readonly baseUrl: string,
  ) {
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(instanceSecret, 'utf8'), Buffer.alloc(0), 'mailroom-unsubscribe-links', 32),
    );
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  private tag(payload: Buffer): Buffer {
    return createHmac('sha256', this.key).update(payload).digest().subarray(0, TAG_BYTES);
  }

  token(emailId: string, ordinal: number): string {
    if (!Number.isInteger(ordinal) || ordinal < 0 || ordinal > MAX_ORDINAL)
      throw new Error(`unsubscribe token: bad recipient ordinal ${ordinal}`);
    // A list email's copy asks three times (its body's link, then List-Unsubscribe's URL and
    // mailto at delivery): an HMAC each, kept for the copies being delivered.
    const key = `${emailId}/${ordinal}`;
    const known = this.recent.get(key);
    if (known) return known;
    const payload = Buffer.concat([Buffer.from([VERSION]), uuidBytes(emailId), Buffer.from([ordinal])]);
    return this.recent.set(key, base32Encode(Buffer.concat([payload, this.tag(payload)]), BASE32_LOWER));
  }

  /** The email and recipient a token names, or null when it was not signed here (any case accepted). */
  verify(token: string): UnsubscribeTarget | null {
    if (typeof token !== 'string' || token.length !== TOKEN_LENGTH) return null;
    const t = token.toLowerCase();
    const raw = base32Decode(t, BASE32_LOWER);
    if (!raw || raw.length !== PAYLOAD_BYTES + TAG_BYTES || base32Encode(raw, BASE32_LOWER) !== t) return null; // one spelling per token
    const payload = raw.subarray(0, PAYLOAD_BYTES);
    if (payload[0] !== VERSION || !timingSafeEqual(raw.subarray(PAYLOAD_BYTES), this.tag(payload))) return null;
    return { emailId: uuidOf(payload.subarray(1, 17)), ordinal: payload[17] };
  }

  /** The preference page (GET) and one-click endpoint (POST) for this email and recipient. */
  url(emailId: string, ordinal = 0): string {
    return `${this.baseUrl}/u/${this.token(emailId, ordinal)}`;
  }

  /** The mailto address served by our MX on the sending domain's return-path host. */
  mailto(emailId: string, ordinal: number, returnPathHost: string): string {
    return `${MAILTO_LOCAL_PREFIX}${this.token(emailId, ordinal)}@${returnPathHost}`;
  }

  /**
   * The RFC 2369/8058 headers for one recipient's copy, in order. The List-Unsubscribe value is
   * folded after its comma (relaxed DKIM canonicalization unfolds it the same way on both sides).
   */
  headers(emailId: string, ordinal: number, returnPathHost: string, listId?: string | null): [string, string][] {
    const out: [string, string][] = [];
    if (listId) out.push(['List-Id', listId]);
    out.push([
      'List-Unsubscribe',
      `<${this.url(emailId, ordinal)}>,\r\n <mailto:${this.mailto(emailId, ordinal, returnPathHost)}?subject=unsubscribe>`,
    ]);
    out.push(['List-Unsubscribe-Post', 'List-Unsubscribe=One-Click']);
    return out;
  }
}

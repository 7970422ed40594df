// The keyed hash of an email address that outlives its erasure (issue 29): HMAC-SHA256 of the
// normalised address under a key derived (HKDF) from MAILROOM_SECRET_KEY for this purpose only.
// Without the instance secret the hash cannot be tested against a list of guessed addresses.
import { createHmac, hkdfSync } from 'node:crypto';

/** How an address is compared: trimmed, lowercased (as contacts and suppressions store it). */
export const normalizeAddress = (addr: string): string => addr.trim().toLowerCase();

export class AddressHasher {
  private readonly key: Buffer;
  constructor(instanceSecret: string) {
    this.key = Buffer.from(
      hkdfSync('sha256', Buffer.from(instanceSecret, 'utf8'), Buffer.alloc(0), 'mailroom-erased-addresses', 32),
    );
  }

  /** 64 hex characters. */
  hash(addr: string): string {
    return createHmac('sha256', this.key).update(normalizeAddress(addr)).digest('hex');
  }
}

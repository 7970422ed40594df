// Base32 (RFC 4648, no padding) in a chosen alphabet: TOTP secrets use the standard upper-case one,
// unsubscribe tokens a lower-case one that survives MTAs changing the case of local parts.
export const BASE32_UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
export const BASE32_LOWER = 'abcdefghijklmnopqrstuvwxyz234567';

export function base32Encode(buf: Buffer, alphabet = BASE32_UPPER): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of buf) {
    value = ((value << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** The bytes, or null when a character is outside the alphabet. */
export function base32Decode(s: string, alphabet = BASE32_UPPER): Buffer | null {
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const ch of s) {
    const v = alphabet.indexOf(ch);
    if (v < 0) return null;
    value = ((value << 5) | v) & 0xffff;
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(bytes);
}

// The pattern an erasure and an export look for: one address, case-insensitive, plain or with its
// @ percent-encoded (a request path such as /contacts/a%40b.c), never as part of a longer address
// (erasing bob@x.com leaves jimbob@x.com and bob@x.com.au alone). PostgreSQL's ARE syntax (~*).
import { normalizeAddress } from '../lib/address-hash.js';

const escapeRe = (s: string) => s.replace(/[\\^$.|?*+()[\]{}]/g, (c) => `\\${c}`);

export function addressPattern(addr: string): string {
  const a = normalizeAddress(addr);
  const at = a.lastIndexOf('@');
  const local = escapeRe(a.slice(0, at));
  const domain = escapeRe(a.slice(at + 1));
  return `(?<![a-z0-9._+-])${local}(@|%40)${domain}(?![a-z0-9-])(?!\\.[a-z0-9])`;
}

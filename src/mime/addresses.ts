// Email address syntax for the send path and every field that takes an address (contacts,
// templates, suppressions): `addr`, `Name <addr>`, `"Quoted, Name" <addr>`. Owns the rules (RFC 5321
// local part, IDN domains converted to ASCII); it knows a field only to name it in the error.
import { domainToASCII } from 'node:url';
import { invalidField } from '../errors.js';

export interface Address {
  /** Display name as given (unicode allowed); undefined when absent or empty. */
  name?: string;
  /** `local@domain` with the domain in lowercase ASCII (punycode for IDNs). */
  address: string;
  /** The ASCII domain, lowercase. */
  domain: string;
}

/** Characters that could end a header line or smuggle one in: C0 controls but TAB, DEL, NEL, LS, PS. */
export const UNSAFE_HEADER_CHARS = /[\u0000-\u0008\u000a-\u001f\u007f\u0085\u2028\u2029]/;

const ATEXT = "[A-Za-z0-9!#$%&'*+\\-/=?^_`{|}~]";
const DOT_ATOM = new RegExp(`^${ATEXT}+(?:\\.${ATEXT}+)*$`);
// RFC 5321 Quoted-string: qtextSMTP (printable ASCII but `"` and `\`) or a quoted pair.
const QUOTED_LOCAL = /^"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"$/;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export const MAX_LOCAL_PART = 64;
export const MAX_DOMAIN = 253;
export const MAX_ADDRESS = 254; // RFC 5321 path (256) minus the angle brackets
export const MAX_DISPLAY_NAME = 256;

/** Why an address is invalid, or null when it is fine. Pure syntax: no DNS. */
function checkAddrSpec(spec: string): { reason: string } | { local: string; domain: string } {
  const at = spec.lastIndexOf('@');
  if (at <= 0 || at === spec.length - 1) return { reason: 'it must look like `email@example.com`' };
  const local = spec.slice(0, at);
  const rawDomain = spec.slice(at + 1);
  if (local.length > MAX_LOCAL_PART) return { reason: `the part before @ is longer than ${MAX_LOCAL_PART} characters` };
  if (!DOT_ATOM.test(local) && !QUOTED_LOCAL.test(local))
    return { reason: 'the part before @ contains characters that are not allowed' };
  const domain = toAsciiDomain(rawDomain);
  if (typeof domain !== 'string') return domain;
  if (local.length + 1 + domain.length > MAX_ADDRESS)
    return { reason: `the address is longer than ${MAX_ADDRESS} characters` };
  return { local, domain };
}

// Recipient and sender domains repeat (gmail.com, the team's own domain): their checked ASCII
// form is kept. Measured on the batch path: address parsing was ~7% of the API's CPU, most of it
// domainToASCII and the label checks.
const asciiDomains = new Map<string, string | { reason: string }>();
const MAX_CACHED_DOMAINS = 10_000;

/** Converts a (possibly unicode) domain to lowercase ASCII and checks it is a public-looking hostname. */
export function toAsciiDomain(raw: string): string | { reason: string } {
  let out = asciiDomains.get(raw);
  if (out === undefined) {
    out = checkDomain(raw);
    if (asciiDomains.size >= MAX_CACHED_DOMAINS) asciiDomains.clear();
    asciiDomains.set(raw, out);
  }
  return out;
}

function checkDomain(raw: string): string | { reason: string } {
  if (raw.startsWith('[')) return { reason: 'IP address literals are not accepted as domains' };
  if (/[\s@<>()\[\]\\,;:"%/?#]/.test(raw)) return { reason: 'the domain contains characters that are not allowed' };
  const ascii = domainToASCII(raw);
  if (!ascii) return { reason: 'the domain is not a valid hostname' };
  if (ascii.length > MAX_DOMAIN) return { reason: `the domain is longer than ${MAX_DOMAIN} characters` };
  const labels = ascii.split('.');
  if (labels.length < 2) return { reason: 'the domain must contain a dot' };
  if (!labels.every((l) => LABEL.test(l)))
    return { reason: 'each domain label must be 1-63 letters, digits or hyphens' };
  // TLDs are never all-numeric; this also catches dotted IPv4 (and WHATWG's `0x7f.1` → `127.0.0.1`).
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return { reason: 'IP addresses are not accepted as domains' };
  return ascii;
}

/** Splits `Name <addr>` / `"Name" <addr>` / `addr` into a raw name and addr-spec, or null. */
function splitNameAddr(s: string): { name?: string; spec: string } | null {
  if (!s.endsWith('>')) return s.includes('<') ? null : { spec: s };
  if (s.startsWith('"')) {
    let i = 1;
    let name = '';
    for (; i < s.length && s[i] !== '"'; i++) {
      if (s[i] === '\\' && i + 1 < s.length) i++;
      name += s[i];
    }
    if (i >= s.length) return null;
    const rest = s.slice(i + 1).trim();
    if (!rest.startsWith('<') || rest.indexOf('<', 1) !== -1) return null;
    return { name, spec: rest.slice(1, -1).trim() };
  }
  const lt = s.lastIndexOf('<');
  if (lt < 0) return null;
  const name = s.slice(0, lt).trim();
  if (/[<>"]/.test(name)) return null;
  return { name, spec: s.slice(lt + 1, -1).trim() };
}

/** A value quoted for an error message, cut at 80 characters. */
export const shown = (s: string): string => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}…` : s);

/**
 * Parses one address; throws `validation_error` naming `field` when it is malformed.
 * Only the domain is lowercased: local parts are case-sensitive (RFC 5321 §2.4).
 */
export function parseAddress(s: string, field = 'to'): Address {
  const bad = (why: string) => invalidField(field, `${shown(s)} is not a valid email address: ${why}.`);
  if (typeof s !== 'string') throw invalidField(field, 'addresses must be strings.');
  if (UNSAFE_HEADER_CHARS.test(s)) throw invalidField(field, 'line breaks and control characters are not allowed.');
  const parts = splitNameAddr(s.trim());
  if (!parts) throw bad('use `email@example.com` or `Name <email@example.com>`');
  if (parts.name !== undefined && parts.name.length > MAX_DISPLAY_NAME)
    throw bad(`the name is longer than ${MAX_DISPLAY_NAME} characters`);
  const spec = checkAddrSpec(parts.spec);
  if ('reason' in spec) throw bad(spec.reason);
  const name = parts.name?.trim() || undefined;
  const address = `${spec.local}@${spec.domain}`;
  // Two literals, not `{ ...(name ? { name } : {}), ... }`: that spread cost ~2.5 µs per named
  // address (measured), on every From of the send path.
  return name ? { name, address, domain: spec.domain } : { address, domain: spec.domain };
}

/** Parses `string | string[]` (one address per string; commas are not list separators). */
export function parseAddressList(v: unknown, field = 'to'): Address[] {
  if (typeof v === 'string') return [parseAddress(v, field)];
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) {
    throw invalidField(field, 'must be an email address or an array of email addresses.');
  }
  return v.map((x: string) => parseAddress(x, field));
}

/** `Name <addr>` for display and storage, quoting the name when it holds RFC 5322 specials. */
export function formatAddress(a: Address): string {
  if (!a.name) return a.address;
  const name = /^[\p{L}\p{N} !#$%&'*+\-/=?^_`{|}~]+$/u.test(a.name)
    ? a.name
    : `"${a.name.replace(/(["\\])/g, '\\$1')}"`;
  return `${name} <${a.address}>`;
}

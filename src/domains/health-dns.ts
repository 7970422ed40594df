// DNS reads for domain health through the configured resolver (MAILROOM_DNS_SERVERS): "no such
// record" is a value (null), anything else (SERVFAIL, timeout) throws, so a check can say it could
// not look rather than report a record missing. Also the forward-confirmed reverse DNS of an
// outbound address and its DNS blocklist listings.
import type { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

const ABSENT = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);

export class HealthDns {
  constructor(private readonly resolver: Resolver) {}

  private async orNull<T>(p: Promise<T>): Promise<T | null> {
    try {
      return await p;
    } catch (err) {
      if (ABSENT.has((err as { code?: string }).code ?? '')) return null;
      throw err;
    }
  }

  txt(name: string): Promise<string[] | null> {
    return this.orNull(this.resolver.resolveTxt(name)).then((r) => r && r.map((chunks) => chunks.join('')));
  }
  a(name: string): Promise<string[] | null> {
    return this.orNull(this.resolver.resolve4(name));
  }
  aaaa(name: string): Promise<string[] | null> {
    return this.orNull(this.resolver.resolve6(name));
  }
  ptr(ip: string): Promise<string[] | null> {
    return this.orNull(this.resolver.reverse(ip));
  }
}

const norm = (h: string) => h.toLowerCase().replace(/\.$/, '');

export interface ReverseDns {
  ip: string;
  ptr: string[];
  forwardConfirmed: boolean;
  matchesHelo: boolean;
}

/** PTR of `ip`, and whether one of its names is `helo` and resolves (A/AAAA) back to `ip`. */
export async function reverseDns(dns: HealthDns, ip: string, helo: string): Promise<ReverseDns> {
  const ptr = ((await dns.ptr(ip)) ?? []).map(norm);
  const matchesHelo = ptr.includes(norm(helo));
  let forwardConfirmed = false;
  for (const name of matchesHelo ? [norm(helo)] : ptr) {
    const forward = isIP(ip) === 6 ? await dns.aaaa(name) : await dns.a(name);
    if ((forward ?? []).some((f) => expand(f) === expand(ip))) {
      forwardConfirmed = true;
      break;
    }
  }
  return { ip, ptr, forwardConfirmed, matchesHelo };
}

/** IPv6 written out in full (for comparing and for nibble-reversal). */
function expand(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  const [head, tail] = ip.toLowerCase().split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return groups.map((g) => g.padStart(4, '0')).join(':');
}

/** The name a DNSBL is asked for an address: reversed octets (IPv4) or nibbles (IPv6). */
export function dnsblName(ip: string, zone: string): string {
  const rev =
    isIP(ip) === 6 ? expand(ip).replace(/:/g, '').split('').reverse().join('.') : ip.split('.').reverse().join('.');
  return `${rev}.${zone}`;
}

export type Listing =
  | { zone: string; target: string; listed: true; codes: string[]; reason: string | null }
  | { zone: string; target: string; listed: false }
  | { zone: string; target: string; listed: null; error: string };

/**
 * One blocklist query. An answer in 127.0.0.0/8 means listed, except 127.255.255.x, which
 * Spamhaus uses for "query refused" (public resolvers, over quota): that is reported as an
 * error, not a listing.
 */
export async function dnsblQuery(dns: HealthDns, target: string, zone: string): Promise<Listing> {
  const name = isIP(target) ? dnsblName(target, zone) : `${norm(target)}.${zone}`;
  try {
    const codes = (await dns.a(name)) ?? [];
    const refused = codes.filter((c) => c.startsWith('127.255.255.'));
    if (refused.length)
      return {
        zone,
        target,
        listed: null,
        error: `the blocklist refused the query (${refused.join(', ')}); it may not answer public resolvers`,
      };
    const hits = codes.filter((c) => c.startsWith('127.'));
    if (!hits.length) return { zone, target, listed: false };
    const reason = await dns.txt(name).then(
      (t) => t?.join(' ') ?? null,
      () => null,
    );
    return { zone, target, listed: true, codes: hits, reason };
  } catch (err) {
    return { zone, target, listed: null, error: (err as { code?: string }).code ?? (err as Error).message };
  }
}

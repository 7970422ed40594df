// SSRF guard: says whether an IP address is a public unicast address a server may fetch from.
// Pure byte arithmetic (no node:net BlockList, whose IPv4-mapped handling varies). Callers:
// attachment `path` fetches (emails/) and webhook endpoints (webhooks/).
import { isIP } from 'node:net';

type Range = [bytes: number[], prefix: number, label: string];

const v4 = (s: string): number[] => s.split('.').map(Number);

/** Parses an IPv6 literal (with `::` and an optional trailing dotted IPv4) into 16 bytes. */
function v6(s: string): number[] {
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.', lastColon)) {
    tail = v4(s.slice(lastColon + 1));
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = s.split('::');
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const groups = rest === undefined ? h : [...h, ...Array(8 - h.length - r.length).fill('0'), ...r];
  const bytes = groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 255];
  });
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

const V4_BLOCKED: Range[] = [
  [v4('0.0.0.0'), 8, 'unspecified'],
  [v4('10.0.0.0'), 8, 'private'],
  [v4('100.64.0.0'), 10, 'carrier-grade NAT'],
  [v4('127.0.0.0'), 8, 'loopback'],
  [v4('169.254.0.0'), 16, 'link-local (cloud metadata)'],
  [v4('172.16.0.0'), 12, 'private'],
  [v4('192.0.0.0'), 24, 'IETF protocol assignments'],
  [v4('192.0.2.0'), 24, 'documentation'],
  [v4('192.88.99.0'), 24, '6to4 relay'],
  [v4('192.168.0.0'), 16, 'private'],
  [v4('198.18.0.0'), 15, 'benchmarking'],
  [v4('198.51.100.0'), 24, 'documentation'],
  [v4('203.0.113.0'), 24, 'documentation'],
  [v4('224.0.0.0'), 4, 'multicast'],
  [v4('240.0.0.0'), 4, 'reserved'],
];

const V6_BLOCKED: Range[] = [
  [v6('::'), 128, 'unspecified'],
  [v6('::1'), 128, 'loopback'],
  [v6('::'), 96, 'IPv4-compatible'],
  [v6('100::'), 64, 'discard'],
  [v6('2001::'), 32, 'Teredo'],
  [v6('2001:db8::'), 32, 'documentation'],
  [v6('64:ff9b:1::'), 48, 'local NAT64'],
  [v6('fc00::'), 7, 'unique local'],
  [v6('fe80::'), 10, 'link-local'],
  [v6('fec0::'), 10, 'site-local'],
  [v6('ff00::'), 8, 'multicast'],
];

function inRange(bytes: number[], [net, prefix]: Range): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const bits = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if ((bytes[bit / 8] & mask) !== (net[bit / 8] & mask)) return false;
  }
  return true;
}

/**
 * Why `ip` must not be contacted (e.g. "loopback"), or null for a public unicast address.
 * IPv6 forms that embed an IPv4 address (mapped ::ffff:0:0/96, translated ::ffff:0:0:0/96, NAT64
 * 64:ff9b::/96, 6to4 2002::/16)
 * are judged by the embedded address. Anything that is not an IP literal is refused.
 */
export function blockedAddressReason(ip: string): string | null {
  const family = isIP(ip.replace(/%.*$/, ''));
  if (family === 4) {
    const b = v4(ip);
    return V4_BLOCKED.find((r) => inRange(b, r))?.[2] ?? null;
  }
  if (family !== 6) return 'not an IP address';
  const b = v6(ip);
  const embedded =
    b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff
      ? b.slice(12, 16)
      : // IPv4-translated ::ffff:0:a.b.c.d (RFC 2765 SIIT): some stacks route it to the IPv4 address.
        b.slice(0, 8).every((x) => x === 0) && b[8] === 0xff && b[9] === 0xff && b[10] === 0 && b[11] === 0
        ? b.slice(12, 16)
        : inRange(b, [v6('64:ff9b::'), 96, ''])
          ? b.slice(12, 16)
          : b[0] === 0x20 && b[1] === 0x02
            ? b.slice(2, 6)
            : null;
  if (embedded) return blockedAddressReason(embedded.join('.'));
  return V6_BLOCKED.find((r) => inRange(b, r))?.[2] ?? null;
}

// CIDR lists (IPv4 and IPv6) for API keys' allowed source networks: parsed and normalised at the
// edge, compiled once into a node:net BlockList so a check is cheap on every request.
import { BlockList, isIP } from 'node:net';

export const MAX_NETWORKS = 50;

/** "10.0.0.0/8", "2001:db8::/32", or a bare address (a /32 or /128); undefined when invalid. */
export function normalizeCidr(text: string): string | undefined {
  if (text.length > 64) return undefined;
  const [addr, prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return undefined;
  const family = isIP(addr);
  if (!family) return undefined;
  const max = family === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return `${addr.toLowerCase()}/${prefix}`;
}

/** The networks as a BlockList (in which "blocked" means "allowed" here). */
export function compileNetworks(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const c of cidrs) {
    const [addr, prefix] = c.split('/');
    list.addSubnet(addr, Number(prefix), isIP(addr) === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/** Whether a client address (IPv4-mapped IPv6 counted as IPv4) is in the list. */
export function inNetworks(list: BlockList, ip: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  const addr = mapped ? mapped[1] : ip;
  const family = isIP(addr);
  if (!family) return false;
  return list.check(addr, family === 4 ? 'ipv4' : 'ipv6');
}

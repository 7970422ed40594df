// Resolves where mail for a domain goes: MX hosts in preference order with their addresses, the
// domain itself (implicit MX), a null MX (RFC 7505), a missing domain, or a temporary DNS failure.
// Uses the configured DNS servers (host:port) through node:dns Resolver; caches answers briefly.
import { Resolver } from 'node:dns/promises';
import net from 'node:net';

export interface MxHost {
  host: string; // the MX name (or the domain itself for an implicit MX)
  priority: number;
  addresses?: string[]; // IPv4 first, then IPv6
}

export type Destination =
  | { kind: 'hosts'; hosts: MxHost[] }
  | { kind: 'null_mx' }
  | { kind: 'nxdomain'; detail?: string }
  | { kind: 'temporary'; error: string };

export interface ResolveOptions {
  servers?: string[]; // host:port list; empty or absent = system resolver
  timeoutMs?: number; // whole lookup, default 10 s
  cacheTtlMs?: number; // default 60 s; 0 disables the cache
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_CACHE_TTL_MS = 60_000;
const MAX_HOSTS = 10; // more MX hosts than this are never tried in one attempt

const cache = new Map<string, { expires: number; value: Destination }>();
const resolvers = new Map<string, Resolver>();

/** Forgets every cached answer (tests, and after an operator changes DNS settings). */
export function clearDestinationCache(): void {
  cache.clear();
}

function resolverFor(servers: string[], timeoutMs: number): Resolver {
  const key = `${servers.join(',')}|${timeoutMs}`;
  let resolver = resolvers.get(key);
  if (!resolver) {
    // c-ares doubles the per-try timeout on each retry: 3 tries fit in about timeoutMs.
    resolver = new Resolver({ timeout: Math.max(100, Math.floor(timeoutMs / 7)), tries: 3 });
    if (servers.length > 0) resolver.setServers(servers);
    resolvers.set(key, resolver);
  }
  return resolver;
}

const errCode = (err: unknown): string => (err as NodeJS.ErrnoException)?.code ?? 'EUNKNOWN';
const isMissing = (code: string) => code === 'ENOTFOUND' || code === 'ENODATA';

class TemporaryDnsError extends Error {}

async function addressesOf(resolver: Resolver, host: string): Promise<string[]> {
  const lookups = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const found: string[] = [];
  let temporary: string | undefined;
  for (const r of lookups) {
    if (r.status === 'fulfilled') found.push(...r.value);
    else if (!isMissing(errCode(r.reason))) temporary = `${errCode(r.reason)} looking up ${host}`;
  }
  if (found.length === 0 && temporary) throw new TemporaryDnsError(temporary);
  return found;
}

function shuffleEqualPriorities(hosts: MxHost[]): MxHost[] {
  const sorted = [...hosts].sort((a, b) => a.priority - b.priority);
  const out: MxHost[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j].priority === sorted[i].priority) j++;
    const group = sorted.slice(i, j);
    for (let k = group.length - 1; k > 0; k--) {
      const r = Math.floor(Math.random() * (k + 1));
      [group[k], group[r]] = [group[r], group[k]];
    }
    out.push(...group);
    i = j;
  }
  return out;
}

async function lookup(domain: string, resolver: Resolver): Promise<Destination> {
  let mx: { exchange: string; priority: number }[];
  try {
    mx = await resolver.resolveMx(domain);
  } catch (err) {
    const code = errCode(err);
    if (code === 'ENOTFOUND') return { kind: 'nxdomain', detail: `domain ${domain} does not exist` };
    if (code !== 'ENODATA') return { kind: 'temporary', error: `${code} looking up MX of ${domain}` };
    mx = [];
  }
  // RFC 7505: a null MX ("0 .") says the domain accepts no mail at all.
  if (mx.some((r) => r.exchange === '' || r.exchange === '.')) return { kind: 'null_mx' };

  if (mx.length === 0) {
    // RFC 5321 5.1: no MX records, the domain's own address is an implicit MX of priority 0.
    try {
      const addresses = await addressesOf(resolver, domain);
      if (addresses.length === 0)
        return { kind: 'nxdomain', detail: `domain ${domain} has no MX and no address records` };
      return { kind: 'hosts', hosts: [{ host: domain, priority: 0, addresses }] };
    } catch (err) {
      return { kind: 'temporary', error: (err as Error).message };
    }
  }

  const ordered = shuffleEqualPriorities(
    mx.map((r) => ({ host: r.exchange.toLowerCase().replace(/\.$/, ''), priority: r.priority })),
  ).slice(0, MAX_HOSTS);
  const resolved = await Promise.allSettled(ordered.map((h) => addressesOf(resolver, h.host)));
  const hosts: MxHost[] = [];
  let temporary: string | undefined;
  resolved.forEach((r, i) => {
    if (r.status === 'fulfilled' && r.value.length > 0) hosts.push({ ...ordered[i], addresses: r.value });
    else if (r.status === 'rejected') temporary = (r.reason as Error).message;
  });
  if (hosts.length > 0) return { kind: 'hosts', hosts };
  if (temporary) return { kind: 'temporary', error: temporary };
  return { kind: 'nxdomain', detail: `no MX host of ${domain} has an address` };
}

/** Finds the delivery destination of a domain. Never throws: DNS trouble is a `temporary` value. */
export async function resolveDestination(domain: string, opts: ResolveOptions = {}): Promise<Destination> {
  const name = domain.trim().toLowerCase().replace(/\.$/, '');
  const literal = /^\[(?:ipv6:)?([^\]]+)\]$/i.exec(name)?.[1] ?? name;
  if (net.isIP(literal)) return { kind: 'hosts', hosts: [{ host: literal, priority: 0, addresses: [literal] }] };

  const servers = opts.servers ?? [];
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ttl = opts.cacheTtlMs ?? DEFAULT_CACHE_TTL_MS;
  const key = `${servers.join(',')}|${name}`;
  const hit = cache.get(key);
  if (hit && hit.expires > Date.now()) return hit.value;

  const resolver = resolverFor(servers, timeoutMs);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Destination>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: 'temporary', error: `DNS lookup of ${name} timed out after ${timeoutMs} ms` }),
      timeoutMs,
    );
  });
  let value: Destination;
  try {
    value = await Promise.race([lookup(name, resolver), timeout]);
  } catch (err) {
    value = { kind: 'temporary', error: `DNS lookup of ${name} failed: ${(err as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
  // Temporary failures are not cached: the next attempt should ask again.
  if (ttl > 0 && value.kind !== 'temporary') {
    cache.set(key, { expires: Date.now() + ttl, value });
    if (cache.size > 10_000) cache.delete(cache.keys().next().value as string);
  }
  return value;
}

// SSRF policy for webhook endpoints: a URL must be http(s), and its host must resolve only to
// public addresses (unless MAILROOM_ALLOW_PRIVATE_NETWORKS). Checked when an endpoint is saved and
// again on every new connection: the delivery agent's `lookup` resolves, checks, and the socket
// connects to exactly the checked address, so DNS rebinding cannot slip a private address in.
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { blockedAddressReason } from '../lib/network-guard.js';

export const BLOCKED_CODE = 'EMAILROOMBLOCKED';

const blocked = (host: string, ip: string, why: string) =>
  Object.assign(new Error(`${host} resolves to a ${why} address (${ip}), which is not allowed`), {
    code: BLOCKED_CODE,
  });

/** Why this URL may not be an endpoint (a sentence for the error message), or null. */
export function endpointUrlProblem(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'must be a valid URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must use http or https';
  if (!u.hostname) return 'must have a host';
  return null;
}

type Address = { address: string; family: number };

function resolveChecked(host: string, allowPrivate: boolean, cb: (err: Error | null, addrs?: Address[]) => void): void {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const check = (addrs: Address[]) => {
    // Any private answer refuses the host: mixing public and private answers is a rebinding setup.
    const bad = allowPrivate ? undefined : addrs.find((a) => blockedAddressReason(a.address) !== null);
    if (bad) return cb(blocked(host, bad.address, blockedAddressReason(bad.address)!));
    if (!addrs.length) return cb(Object.assign(new Error(`${host} does not resolve`), { code: 'ENOTFOUND' }));
    cb(null, addrs);
  };
  if (isIP(bare)) return check([{ address: bare, family: isIP(bare) }]);
  dnsLookup(bare, { all: true, verbatim: true }, (err, addrs) => (err ? cb(err) : check(addrs)));
}

/** Resolves and checks a host now (endpoint creation and update). Rejects with the reason. */
export function checkEndpointHost(host: string, allowPrivate: boolean): Promise<void> {
  return new Promise((resolve, reject) => resolveChecked(host, allowPrivate, (err) => (err ? reject(err) : resolve())));
}

/** A `lookup` for http.Agent: every new connection is checked (IP literals too: see isLiteralBlocked). */
export const guardedLookup =
  (allowPrivate: boolean): LookupFunction =>
  (hostname, options, callback) => {
    resolveChecked(hostname, allowPrivate, (err, addrs) => {
      const cb = callback as unknown as (e: Error | null, a?: string | Address[], f?: number) => void;
      if (err || !addrs) return cb(err ?? new Error('lookup failed'));
      const wanted =
        options.family === 4 || options.family === 6 ? addrs.filter((a) => a.family === options.family) : addrs;
      const list = wanted.length ? wanted : addrs;
      if (options.all) cb(null, list);
      else cb(null, list[0].address, list[0].family);
    });
  };

/** Node connects to IP literals without calling `lookup`: those are checked here instead. */
export function literalBlockedReason(hostname: string, allowPrivate: boolean): string | null {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  if (allowPrivate || !isIP(bare)) return null;
  const why = blockedAddressReason(bare);
  return why ? `${hostname} is a ${why} address, which is not allowed` : null;
}

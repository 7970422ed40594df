// Fetches an attachment `path` URL without letting a caller reach internal services (SSRF):
// every hop's host is resolved once, checked, and the socket connects to that checked address
// (custom `lookup`), so DNS cannot change between check and connect. The only network I/O in emails/.
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { AppError } from '../errors.js';
import { blockedAddressReason } from '../lib/network-guard.js';

export interface FetchOptions {
  /** MAILROOM_ALLOW_PRIVATE_NETWORKS: allow loopback/private/link-local targets. */
  allowPrivateNetworks: boolean;
  maxBytes: number;
  /** Whole operation, all redirects included. */
  timeoutMs: number;
  maxRedirects?: number;
  /** Overrides the address policy (e.g. an operator allow-list); default: public unicast only. */
  allowAddress?: (ip: string) => boolean;
}

export interface Fetched {
  content: Buffer;
  /** The response Content-Type, if any (unvalidated). */
  contentType?: string;
}

interface Target {
  address: string;
  family: 4 | 6;
}
type Hop = { redirect: string } | Fetched;

/** URL without credentials or query string, safe to echo in errors and logs. */
const shownUrl = (u: URL): string => `${u.protocol}//${u.host}${u.pathname}`;

export async function fetchAttachment(url: string, opts: FetchOptions): Promise<Fetched> {
  const deadline = Date.now() + opts.timeoutMs;
  const maxRedirects = opts.maxRedirects ?? 3;
  let current: URL;
  try {
    current = new URL(url);
  } catch {
    throw new AppError('invalid_attachment', 'Attachment `path` must be a valid http or https URL.');
  }
  for (let hop = 0; ; hop++) {
    const fail = (why: string) =>
      new AppError('invalid_attachment', `Could not fetch attachment from ${shownUrl(current)}: ${why}.`);
    if (current.protocol !== 'http:' && current.protocol !== 'https:')
      throw fail('only http and https URLs are supported');
    const target = await resolveTarget(current, opts, deadline, fail);
    const res = await request(current, target, opts.maxBytes, deadline, fail);
    if ('content' in res) return res;
    if (hop >= maxRedirects) throw fail(`more than ${maxRedirects} redirects`);
    try {
      current = new URL(res.redirect, current);
    } catch {
      throw fail('the redirect location is not a valid URL');
    }
  }
}

async function resolveTarget(
  u: URL,
  opts: FetchOptions,
  deadline: number,
  fail: (why: string) => AppError,
): Promise<Target> {
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: Target[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) as 4 | 6 }];
  } else {
    try {
      const found = await withDeadline(dnsLookup(host, { all: true, verbatim: true }), deadline);
      addresses = found.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
    } catch (err) {
      throw fail(err instanceof DeadlineError ? 'timed out' : `the host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw fail(`the host ${host} does not resolve`);
  const allowed = (ip: string) =>
    opts.allowPrivateNetworks || (opts.allowAddress ? opts.allowAddress(ip) : blockedAddressReason(ip) === null);
  // Refuse when ANY address is non-public: a host that mixes public and private answers is a rebinding setup.
  const refused = addresses.find((a) => !allowed(a.address));
  if (refused) {
    const why = blockedAddressReason(refused.address) ?? 'not allowed';
    throw fail(`the host resolves to a ${why} address (${refused.address}), which is not allowed`);
  }
  return addresses[0];
}

function request(
  u: URL,
  target: Target,
  maxBytes: number,
  deadline: number,
  fail: (why: string) => AppError,
): Promise<Hop> {
  return new Promise<Hop>((resolve, reject) => {
    const pinned: LookupFunction = (_host, options, cb) => {
      if (options.all) (cb as unknown as (e: null, a: Target[]) => void)(null, [target]);
      else cb(null, target.address, target.family);
    };
    const lib = u.protocol === 'https:' ? https : http;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(fail('timed out'));
    const req = lib.request({
      protocol: u.protocol,
      hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: u.port || undefined,
      path: `${u.pathname}${u.search}`,
      method: 'GET',
      headers: { 'user-agent': 'Mailroom attachment fetcher', accept: '*/*' },
      auth: u.username ? `${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}` : undefined,
      lookup: pinned,
      agent: false,
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
    };
    const abort = (err: AppError) =>
      settle(() => {
        reject(err);
        req.destroy();
      });
    const timer = setTimeout(() => abort(fail('timed out')), remaining);
    req.on('error', (err) => settle(() => reject(fail(err.message || 'connection failed'))));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        return settle(() => resolve({ redirect: res.headers.location! }));
      }
      if (status < 200 || status >= 300) {
        res.resume();
        return settle(() => reject(fail(`the server answered HTTP ${status}`)));
      }
      const tooBig = () => abort(fail(`the file is larger than ${maxBytes} bytes`));
      if (Number(res.headers['content-length']) > maxBytes) return tooBig();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return tooBig();
        chunks.push(chunk);
      });
      res.on('error', (err) => settle(() => reject(fail(err.message || 'the connection broke'))));
      res.on('end', () =>
        settle(() => {
          const contentType = res.headers['content-type'];
          resolve({ content: Buffer.concat(chunks), ...(contentType ? { contentType } : {}) });
        }),
      );
    });
    req.end();
  });
}

class DeadlineError extends Error {}

function withDeadline<T>(p: Promise<T>, deadline: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError()), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([p, expired]).finally(() => clearTimeout(timer));
}

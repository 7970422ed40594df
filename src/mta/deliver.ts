// Delivers one message to all its recipients on one destination domain, in one SMTP transaction:
// resolve the MX hosts (or use the relay), connect in preference order, MAIL, RCPT..., DATA.
// Every expected outcome is a per-recipient value; it throws only on bugs.
import { resolveDestination } from './mx.js';
import { ConnectError, type Lease, type Pool, type Target, type TlsPolicy } from './pool.js';
import {
  fromReply,
  fromTransaction,
  localFailure,
  type Attempt,
  type RecipientResult,
  type SendError,
  type SendInfo,
} from './results.js';

export type { RecipientResult } from './results.js';

export interface OutboundMessage {
  mailFrom: string; // '' = null sender
  recipients: string[]; // all on one destination domain
  raw: Buffer; // already DKIM-signed
  tls: TlsPolicy;
}

export type Route = { mode: 'mx'; domain: string; port: number; dns: string[] } | { mode: 'relay'; url: string }; // smtp[s]://user:pass@host:port

export interface DeliverOptions {
  heloName: string;
  localAddress?: string; // source IP (per-region egress)
  pool: Pool;
  timeoutMs?: number; // DNS lookup budget, default 10 s (SMTP timeouts belong to the pool)
}

interface Candidate {
  target: Target;
  mxHost: string;
}

const MAX_CANDIDATES = 10; // addresses tried per attempt, across all MX hosts

/** Why an attempt on one host did not settle the message: the next host is tried. */
interface NextHost {
  next: true;
  reason: string;
  enhanced: string;
  tls: boolean;
  mxHost: string;
  reply?: string; // a 4xx server reply (greeting or MAIL FROM), classified as such when it is the last
}

export async function deliver(msg: OutboundMessage, route: Route, opts: DeliverOptions): Promise<RecipientResult[]> {
  const recipients = [...new Set(msg.recipients)];
  const plan =
    route.mode === 'relay'
      ? relayCandidates(route.url, msg.tls, opts.heloName, opts.localAddress)
      : await mxCandidates(msg, recipients, route, opts);
  if ('results' in plan) return inCallerOrder(msg.recipients, plan.results);

  const candidates = plan.candidates.slice(0, MAX_CANDIDATES);
  let last: NextHost = { next: true, reason: 'no host to connect to', enhanced: '4.4.4', tls: false, mxHost: '' };
  for (const candidate of candidates) {
    const outcome = await attempt(msg, recipients, candidate, opts.pool);
    if (!('next' in outcome)) return inCallerOrder(msg.recipients, outcome);
    last = outcome;
  }
  const reason = candidates.length > 1 ? `all ${candidates.length} hosts failed, last: ${last.reason}` : last.reason;
  const category = last.enhanced === '4.7.10' ? 'tls' : 'connection';
  const at = { tls: last.tls, mxHost: last.mxHost || undefined };
  const results = recipients.map((r) =>
    last.reply ? fromReply(r, last.reply, at) : localFailure(r, 'deferred', last.enhanced, reason, { ...at, category }),
  );
  return inCallerOrder(msg.recipients, results);
}

/** Returns one result per recipient in the caller's order (a duplicate repeats its result). */
function inCallerOrder(original: string[], results: RecipientResult[]): RecipientResult[] {
  const byRecipient = new Map(results.map((r) => [r.recipient, r]));
  return original.map((r) => ({ ...byRecipient.get(r)! }));
}

async function mxCandidates(
  msg: OutboundMessage,
  recipients: string[],
  route: Extract<Route, { mode: 'mx' }>,
  opts: DeliverOptions,
): Promise<{ candidates: Candidate[] } | { results: RecipientResult[] }> {
  const dest = await resolveDestination(route.domain, { servers: route.dns, timeoutMs: opts.timeoutMs });
  const fail = (status: 'deferred' | 'bounced', code: number | undefined, enhanced: string, reason: string) => ({
    results: recipients.map((r) => localFailure(r, status, enhanced, reason, { tls: false, code, category: 'dns' })),
  });
  switch (dest.kind) {
    case 'null_mx':
      return fail('bounced', 550, '5.1.2', `Domain ${route.domain} does not accept mail (null MX, RFC 7505)`);
    case 'nxdomain':
      return fail('bounced', 550, '5.1.2', `Host or domain name not found: ${dest.detail ?? route.domain}`);
    case 'temporary':
      return fail('deferred', undefined, '4.4.3', `DNS lookup failed for ${route.domain}: ${dest.error}`);
    case 'hosts':
      return {
        candidates: dest.hosts.flatMap((h) =>
          (h.addresses ?? [h.host]).map((address) => ({
            mxHost: h.host,
            target: {
              address,
              port: route.port,
              servername: h.host,
              tls: msg.tls,
              heloName: opts.heloName,
              localAddress: opts.localAddress,
            },
          })),
        ),
      };
  }
}

function relayCandidates(
  url: string,
  tls: TlsPolicy,
  heloName: string,
  localAddress?: string,
): { candidates: Candidate[] } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`invalid relay URL`); // configuration is validated at start; reaching here is a bug
  }
  const secure = parsed.protocol === 'smtps:';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const auth = parsed.username
    ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) }
    : undefined;
  const port = Number(parsed.port) || (secure ? 465 : 587);
  return {
    candidates: [
      { mxHost: host, target: { address: host, port, servername: host, tls, secure, heloName, auth, localAddress } },
    ],
  };
}

function use8Bit(raw: Buffer): boolean {
  for (let i = 0; i < raw.length; i++) if (raw[i] > 127) return true;
  return false;
}

function send(lease: Lease, msg: OutboundMessage, recipients: string[]): Promise<{ info?: SendInfo; err?: SendError }> {
  return new Promise((resolve) => {
    const envelope = {
      from: msg.mailFrom || false,
      to: recipients,
      size: msg.raw.length,
      use8BitMime: use8Bit(msg.raw),
    } as const;
    lease.connection.send(envelope, msg.raw, (err, info) =>
      resolve(err ? { err: err as SendError } : { info: info as SendInfo }),
    );
  });
}

/** nodemailer keeps RCPT results of a transaction whose DATA failed only on its private envelope. */
function envelopeState(lease: Lease): { accepted?: string[]; rcptErrors?: SendError[] } {
  const env = (lease.connection as unknown as { _envelope?: { accepted?: string[]; rejectedErrors?: SendError[] } })
    ._envelope;
  return { accepted: env?.accepted, rcptErrors: env?.rejectedErrors };
}

const NETWORK_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EPROTOCOL', 'ETLS', 'ESTREAM']);

async function attempt(
  msg: OutboundMessage,
  recipients: string[],
  c: Candidate,
  pool: Pool,
): Promise<RecipientResult[] | NextHost> {
  const where = `${c.mxHost}${c.mxHost === c.target.address ? '' : ` [${c.target.address}]`}:${c.target.port}`;
  // A reused connection the server has silently dropped fails at once; retry on a fresh one.
  for (let tries = 0; tries < 2; tries++) {
    let lease: Lease;
    try {
      lease = await pool.acquire(c.target);
    } catch (err) {
      const e = err as ConnectError;
      if (e.policy) return { next: true, reason: e.message, enhanced: '4.7.10', tls: false, mxHost: c.mxHost };
      const reason = `connection to ${where} failed: ${e.message}`;
      const reply = e.response && /^4\d\d/.test(e.response) ? e.response : undefined;
      return { next: true, reason, enhanced: '4.4.1', tls: false, mxHost: c.mxHost, reply };
    }
    const at: Attempt = { mxHost: c.mxHost, tls: lease.secure };
    const { info, err } = await send(lease, msg, recipients);
    if (info) {
      lease.release();
      return fromTransaction(recipients, { info }, at);
    }
    const e = err!;
    if (e.code === 'EMESSAGE' && !e.response && /larger than allowed/.test(e.message)) {
      // nodemailer refused before sending: the message is larger than the server's SIZE.
      lease.release();
      return recipients.map((r) =>
        localFailure(r, 'bounced', '5.3.4', `message too large for ${where}: ${e.message}`, {
          ...at,
          code: 552,
          category: 'message_size',
          subType: 'MessageTooLarge',
        }),
      );
    }
    const state = envelopeState(lease);
    if (!e.responseCode || (e.code && NETWORK_CODES.has(e.code) && e.command !== 'DATA')) {
      lease.release({ broken: true });
      // Retry only when no recipient was accepted yet: past that, DATA may have reached the server.
      if (lease.reused && tries === 0 && !state.accepted?.length) continue;
      const reason = `connection to ${where} lost during the SMTP transaction: ${e.message}`;
      return recipients.map((r) => localFailure(r, 'deferred', '4.4.2', reason, { ...at, category: 'network' }));
    }
    lease.release({ dirty: true });
    if (e.command === 'MAIL FROM' && e.responseCode >= 400 && e.responseCode < 500) {
      return {
        next: true,
        reason: `${where} answered MAIL FROM with ${e.response}`,
        enhanced: '4.4.0',
        tls: at.tls,
        mxHost: c.mxHost,
        reply: e.response,
      };
    }
    return fromTransaction(recipients, { err: e, ...state }, at);
  }
  throw new Error('unreachable: delivery attempt loop ended without an outcome');
}

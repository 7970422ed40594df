// One webhook request: POST over a keep-alive pool per endpoint and origin (SSRF-guarded lookup),
// a hard deadline, no redirects followed (a 3xx is an answer like any non-2xx), the response's
// first 4 KB kept for the log, and a failure named by its cause (timeout, dns, tls, refused, closed).
// The client is undici's Pool driven through its handler API: half the CPU per request of
// node:http's client on the fan-out benchmark's receivers (BENCHMARKS, issue 27, twelfth session).
import { Pool, type Dispatcher } from 'undici';
import { BLOCKED_CODE, guardedLookup, literalBlockedReason } from './endpoint-guard.js';

export const RESPONSE_EXCERPT_BYTES = 4096;
const DRAIN_LIMIT_BYTES = 1024 * 1024; // read past this and the connection is dropped instead
const MAX_POOLS = 1000;

export type FailureType = 'timeout' | 'dns' | 'tls' | 'refused' | 'closed' | 'blocked' | 'network';

export interface PostResult {
  status: number | null;
  body: string | null; // excerpt
  retryAfter?: string;
  durationMs: number;
  error?: { type: FailureType; message: string };
}

export interface HttpOptions {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  maxSockets: number;
}

function failureType(err: NodeJS.ErrnoException): FailureType {
  const code = err.code ?? '';
  if (code === BLOCKED_CODE) return 'blocked';
  if (
    code === 'ETIMEDOUT' ||
    code === 'ESOCKETTIMEDOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT'
  )
    return 'timeout';
  if (code === 'ENOTFOUND' || code.startsWith('EAI_')) return 'dns';
  if (code === 'ECONNREFUSED') return 'refused';
  if (
    code === 'ECONNRESET' ||
    code === 'EPIPE' ||
    code === 'ECONNABORTED' ||
    code === 'HPE_INVALID_EOF_STATE' ||
    code === 'UND_ERR_SOCKET' ||
    code === 'UND_ERR_CLOSED'
  )
    return 'closed';
  if (
    /^(ERR_TLS|ERR_SSL|CERT_|UNABLE_TO_|DEPTH_ZERO|SELF_SIGNED|EPROTO|ERR_OSSL)/.test(code) ||
    /certificate|ssl|tls/i.test(err.message)
  )
    return 'tls';
  return 'network';
}

type Once = { result: Omit<PostResult, 'durationMs'>; closedBeforeAnswer?: boolean };

export class WebhookHttp {
  private readonly pools = new Map<string, Pool>();
  constructor(private readonly opts: HttpOptions) {}

  /** One pool per endpoint (not per host): endpoints sharing a host never wait for each other's sockets. */
  private poolFor(endpointId: string, u: URL): Pool {
    const key = `${endpointId} ${u.origin}`;
    let pool = this.pools.get(key);
    if (pool) return pool;
    pool = new Pool(u.origin, {
      connections: this.opts.maxSockets,
      connect: { lookup: guardedLookup(this.opts.allowPrivateNetworks) },
    });
    this.pools.set(key, pool);
    if (this.pools.size > MAX_POOLS) {
      // the oldest pool goes (an endpoint still in use gets a new one)
      const [oldKey, old] = this.pools.entries().next().value as [string, Pool];
      this.pools.delete(oldKey);
      old.destroy().catch(() => undefined);
    }
    return pool;
  }

  async post(endpointId: string, url: string, headers: Record<string, string>, body: string): Promise<PostResult> {
    const started = performance.now();
    // Not `{ ...r, durationMs }`: a property added after a spread is slow on Node 20 (deliver.job.ts's attemptRecord).
    const done = (r: Omit<PostResult, 'durationMs'>): PostResult =>
      Object.assign(r, { durationMs: Math.round(performance.now() - started) });
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      return done({ status: null, body: null, error: { type: 'network', message: 'the endpoint is not a valid URL' } });
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:')
      return done({
        status: null,
        body: null,
        error: { type: 'network', message: 'the endpoint is not an http(s) URL' },
      });
    const literal = literalBlockedReason(u.hostname, this.opts.allowPrivateNetworks);
    if (literal) return done({ status: null, body: null, error: { type: 'blocked', message: literal } });
    const deadline = Date.now() + this.opts.timeoutMs;
    const sent = u.username
      ? Object.assign(
          {
            authorization: `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`,
          },
          headers,
        )
      : headers;
    for (let tries = 0; ; tries++) {
      const r = await this.once(this.poolFor(endpointId, u), `${u.pathname}${u.search}`, sent, body, deadline);
      // A kept-alive connection the server closed as the request went out (no answer at all): one
      // quiet retry, as Node documents for its own client. Receivers dedupe by webhook-id.
      if (r.closedBeforeAnswer && tries === 0 && Date.now() < deadline) continue;
      return done(r.result);
    }
  }

  private once(
    pool: Pool,
    path: string,
    headers: Record<string, string>,
    body: string,
    deadline: number,
  ): Promise<Once> {
    return new Promise((resolve) => {
      const h = new PostHandler(resolve, this.opts.timeoutMs, deadline);
      pool.dispatch({ path, method: 'POST', headers, body }, h);
    });
  }

  close(): void {
    for (const p of this.pools.values()) p.destroy().catch(() => undefined);
    this.pools.clear();
  }
}

const DEADLINE = new Error('webhook request deadline');
const DRAINED = new Error('webhook response past the drain limit');

/**
 * One request's handler (undici's handler API), an object with methods rather than a closure per
 * callback: a webhook delivery allocates it and its timer and nothing else of its own.
 */
class PostHandler implements Dispatcher.DispatchHandler {
  private settled = false;
  private controller: Dispatcher.DispatchController | undefined;
  private timedOut = false;
  private status = 0;
  private retryAfter: string | undefined = undefined;
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private seen = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly resolve: (v: Once) => void,
    private readonly timeoutMs: number,
    deadline: number,
  ) {
    this.timer = setTimeout(onDeadline, Math.max(0, deadline - Date.now()), this);
  }

  private settle(v: Once): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolve(v);
  }

  deadline(): void {
    this.timedOut = true;
    this.settle({
      result: {
        status: null,
        body: null,
        error: { type: 'timeout', message: `no answer within ${this.timeoutMs} ms` },
      },
    });
    this.controller?.abort(DEADLINE);
  }

  /** The status is known: a body cut short still counts as the endpoint's answer. */
  private finish(): void {
    const result: Omit<PostResult, 'durationMs'> = {
      status: this.status,
      body: Buffer.concat(this.chunks).toString('utf8'),
    };
    if (this.retryAfter !== undefined) result.retryAfter = this.retryAfter;
    this.settle({ result });
  }

  onRequestStart(c: Dispatcher.DispatchController): void {
    this.controller = c;
    if (this.timedOut) c.abort(DEADLINE);
  }

  onResponseStart(_c: Dispatcher.DispatchController, statusCode: number, h: Record<string, unknown>): void {
    if (statusCode < 200) return; // 1xx: the answer follows
    this.status = statusCode;
    const ra = h['retry-after'];
    if (ra !== undefined) this.retryAfter = String(ra);
  }

  onResponseData(c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.seen += chunk.length;
    if (this.kept < RESPONSE_EXCERPT_BYTES) {
      const part = chunk.subarray(0, RESPONSE_EXCERPT_BYTES - this.kept);
      this.chunks.push(part);
      this.kept += part.length;
    }
    if (this.seen > DRAIN_LIMIT_BYTES) {
      this.finish();
      c.abort(DRAINED);
    }
  }

  onResponseEnd(): void {
    this.finish();
  }

  onResponseError(_c: Dispatcher.DispatchController, err: NodeJS.ErrnoException): void {
    if (this.status) return this.finish();
    const type = failureType(err);
    this.settle({
      result: { status: null, body: null, error: { type, message: err.message || err.code || 'request failed' } },
      closedBeforeAnswer: type === 'closed',
    });
  }
}

function onDeadline(h: PostHandler): void {
  h.deadline();
}

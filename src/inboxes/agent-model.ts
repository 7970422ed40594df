// The inbox agent's one network call: POST <MAILROOM_AGENT_MODEL_URL>/chat/completions (OpenAI's
// chat-completions shape, `response_format: json_object`). The host is resolved once, checked by
// the private-network guard (unless MAILROOM_ALLOW_PRIVATE_NETWORKS) and the socket pinned to the
// checked address; a hard deadline, no redirects, the answer read up to MAX_RESPONSE_BYTES.
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { blockedAddressReason } from '../lib/network-guard.js';

export const MAX_RESPONSE_BYTES = 256 * 1024;

export interface ModelOptions {
  url: string;
  key?: string;
  model: string;
  allowPrivateNetworks: boolean;
  timeoutMs: number;
}

export class ModelError extends Error {}

export interface ChatMessage {
  role: 'system' | 'user';
  content: string;
}

/** The content of the model's first choice (a string), or a ModelError naming why not. */
export async function chatComplete(opts: ModelOptions, messages: ChatMessage[]): Promise<string> {
  const u = new URL(`${opts.url.replace(/\/+$/, '')}/chat/completions`);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new ModelError('the model URL is not http or https');
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  const addrs = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await dnsLookup(host, { all: true, verbatim: true }).catch(() => []);
  if (!addrs.length) throw new ModelError(`the model host ${host} does not resolve`);
  if (!opts.allowPrivateNetworks)
    for (const a of addrs) {
      const why = blockedAddressReason(a.address);
      if (why) throw new ModelError(`the model host resolves to a ${why} address (${a.address}), which is not allowed`);
    }
  const target = addrs[0];
  const pinned: LookupFunction = (_h, o, cb) => {
    if (o.all) (cb as unknown as (e: null, a: unknown[]) => void)(null, [target]);
    else cb(null, target.address, target.family);
  };
  const body = JSON.stringify({
    model: opts.model,
    messages,
    response_format: { type: 'json_object' },
    temperature: 0,
  });
  const raw = await post(u, pinned, opts, body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ModelError('the model answered something that is not JSON');
  }
  const content = (parsed as { choices?: { message?: { content?: unknown } }[] })?.choices?.[0]?.message?.content;
  if (typeof content !== 'string') throw new ModelError('the model answer has no choices[0].message.content');
  return content;
}

function post(u: URL, lookup: LookupFunction, opts: ModelOptions, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const lib = u.protocol === 'https:' ? https : http;
    const req = lib.request({
      protocol: u.protocol,
      hostname: u.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: u.port || undefined,
      path: `${u.pathname}${u.search}`,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': 'Mailroom inbox agent',
        ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}),
      },
      lookup,
      agent: false,
    });
    let done = false;
    const finish = (err: Error | null, v?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) {
        req.destroy();
        reject(err);
      } else resolve(v!);
    };
    const timer = setTimeout(
      () => finish(new ModelError(`the model did not answer in ${opts.timeoutMs} ms`)),
      opts.timeoutMs,
    );
    req.on('error', (e) => finish(new ModelError(`the model request failed: ${e.message}`)));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_RESPONSE_BYTES)
          return finish(new ModelError(`the model answer is over ${MAX_RESPONSE_BYTES} bytes`));
        chunks.push(c);
      });
      res.on('error', (e) => finish(new ModelError(`the model answer broke off: ${e.message}`)));
      res.on('end', () => {
        if (status < 200 || status >= 300) return finish(new ModelError(`the model answered HTTP ${status}`));
        finish(null, Buffer.concat(chunks).toString('utf8'));
      });
    });
    req.end(body);
  });
}

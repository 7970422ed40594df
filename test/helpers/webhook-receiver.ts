// A webhook receiver for tests: node:http on 127.0.0.1, port 0, recording every request with its
// raw body; `respond` decides each answer (status, body, headers, a delay, or dropping the socket).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from '../../src/lib/time.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}
export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  delayMs?: number;
  destroy?: boolean;
}

export interface Receiver {
  url: string;
  received: Received[];
  respond: (r: Received, n: number) => Answer | undefined;
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r: Received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const a = rcv.respond(r, received.length) ?? {};
      if (a.delayMs) await sleep(a.delayMs);
      if (a.destroy) return req.socket.destroy();
      if (res.destroyed) return;
      res.writeHead(a.status ?? 200, { 'content-type': 'text/plain', ...a.headers });
      res.end(a.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const rcv: Receiver = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    respond: () => undefined,
    async waitFor(n, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`receiver got ${received.length} requests, wanted ${n}`);
        await sleep(20);
      }
      return received.slice(0, n);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return rcv;
}

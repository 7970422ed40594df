// Webhook receivers for the fan-out benchmark, in their own process: N node:http servers on
// 127.0.0.1 (one per endpoint) answering 200 at once, counting requests and the delay from the
// event's created_at. Talks to its parent over IPC: {ports} when listening, {stats} on request.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const n = Number(process.argv[2] ?? 10);
let count = 0;
const latencies: number[] = [];
const servers = Array.from({ length: n }, () =>
  http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      const at = /"created_at":"([^"]+)"/.exec(Buffer.concat(chunks).toString())?.[1];
      if (at && latencies.length < 2_000_000) latencies.push(Date.now() - Date.parse(at));
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
      res.end('ok');
    });
  }),
);
for (const s of servers) s.keepAliveTimeout = 60_000;
await Promise.all(servers.map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
process.send!({ ports: servers.map((s) => (s.address() as AddressInfo).port) });
process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'stats') {
    const sorted = [...latencies].sort((a, b) => a - b);
    const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? null;
    process.send!({ stats: { count, p50: q(0.5), p99: q(0.99) } });
  } else if (m.cmd === 'reset') {
    count = 0;
    latencies.length = 0;
  } else if (m.cmd === 'exit') process.exit(0);
});

// The peer for the fan-out benchmark: what bare Node does on this machine with no database, given
// the same job: POST pre-built, freshly signed (Standard Webhooks HMAC) JSON bodies to the same
// receivers over keep-alive connections with the same per-endpoint concurrency. An upper bound for
// the HTTP half of delivery; Mailroom adds the outbox, the queue and the request log.
// `client`: Node's own http client (the issue's peer), or undici's Pool.request (the client
// Mailroom uses since the twelfth session of issue 27), so that a faster client is not counted as
// a gain over a peer that could use it too.
import http from 'node:http';
import { createHmac, randomBytes } from 'node:crypto';
import { Pool } from 'undici';

export async function peerDeliveries(
  ports: number[],
  perEndpoint: number,
  concurrency: number,
  client: 'node' | 'undici' = 'node',
): Promise<{ deliveries: number; seconds: number }> {
  const key = randomBytes(24);
  const started = performance.now();
  await Promise.all(
    ports.map(async (port, e) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
      const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency });
      let next = 0;
      const lane = async () => {
        while (next < perEndpoint) {
          const i = next++;
          const id = `msg_peer${e}_${i}`;
          const body = JSON.stringify({
            type: 'email.delivered',
            created_at: new Date().toISOString(),
            data: { email_id: id, to: ['a@b.test'], subject: 'x'.repeat(40) },
          });
          const ts = Math.floor(Date.now() / 1000);
          const sig = `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
          const headers = {
            'content-type': 'application/json',
            'webhook-id': id,
            'webhook-timestamp': String(ts),
            'webhook-signature': sig,
            'svix-id': id,
            'svix-timestamp': String(ts),
            'svix-signature': sig,
          };
          if (client === 'undici') {
            const res = await pool.request({ path: '/hook', method: 'POST', headers, body });
            await res.body.dump();
            continue;
          }
          await new Promise<void>((resolve, reject) => {
            const req = http.request(
              {
                host: '127.0.0.1',
                port,
                path: '/hook',
                method: 'POST',
                agent,
                headers: { 'content-length': Buffer.byteLength(body), ...headers }, // not a property after a spread: slow on Node 20
              },
              (res) => {
                res.resume();
                res.on('end', resolve);
              },
            );
            req.on('error', reject);
            req.end(body);
          });
        }
      };
      await Promise.all(Array.from({ length: concurrency }, lane));
      agent.destroy();
      await pool.close();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { deliveries: ports.length * perEndpoint, seconds };
}

// The peer for bench/send-api.ts: what bare Node and PostgreSQL do on this machine for the same
// requests with none of Mailroom's work. A node:http server that takes POST /emails (one JSON
// object) and POST /emails/batch (an array), checks that each has from, to and subject, inserts
// each email as one row (id, payload jsonb, created_at) of a table with no index beyond its primary
// key (a single email: one autocommitted INSERT; a batch: one INSERT ... SELECT of the array) and
// answers { id } or { data: [{ id }] }. No key, no rate limit, no request log, no MIME, no job.
// argv: the database URL. Prints one JSON line {url, pid} once listening; stops when stdin closes.
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.argv[2], max: 16 });
await pool.query(
  'CREATE TABLE IF NOT EXISTS peer_emails (id uuid PRIMARY KEY, payload jsonb NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
);

const valid = (e: unknown): e is Record<string, unknown> =>
  typeof e === 'object' && e !== null && ['from', 'to', 'subject'].every((k) => k in e);

const answer = (res: http.ServerResponse, status: number, body: unknown) => {
  const s = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(s) });
  res.end(s);
};

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', async () => {
    try {
      const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (req.url === '/emails/batch' && Array.isArray(body) && body.every(valid)) {
        const rows = body.map((payload) => ({ id: randomUUID(), payload }));
        await pool.query(
          "INSERT INTO peer_emails (id, payload) SELECT (r->>'id')::uuid, r->'payload' FROM json_array_elements($1::json) r",
          [JSON.stringify(rows)],
        );
        answer(res, 200, { data: rows.map((r) => ({ id: r.id })) });
      } else if (req.url === '/emails' && valid(body)) {
        const id = randomUUID();
        await pool.query('INSERT INTO peer_emails (id, payload) VALUES ($1, $2)', [id, body]);
        answer(res, 200, { id });
      } else answer(res, 422, { name: 'validation_error' });
    } catch (err) {
      answer(res, 500, { name: 'application_error', message: String(err) });
    }
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
  const a = server.address() as { port: number };
  console.log(JSON.stringify({ url: `http://127.0.0.1:${a.port}`, pid: process.pid }));
});
process.stdin.resume();
process.stdin.on('end', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});

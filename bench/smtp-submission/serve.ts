// Starts Mailroom (api + smtp roles, capture mode) on a fresh database for the SMTP submission
// benchmark, with a verified sending domain and 127.0.0.1 as a trusted network (smtp-source
// speaks neither TLS nor AUTH). argv: the SMTP port, then the API's port (0 or none: any free
// port). Prints one JSON line {smtp_port, database_url} and keeps running until stdin closes; then
// stops the service and drops the database.
import { api, freshDb, KEY, serveUntilStdinEnds, startService } from '../lib.js';

const port = Number(process.argv[2] ?? 26587);
const httpPort = Number(process.argv[3] ?? 0); // the API listener (0: any free port)
// startService gives a start 30 s; on a box loaded by other work (load 20-30) the first start of
// a fresh database took longer, so it is tried up to three times, each on a fresh database (a
// second start on the first one is refused: its data directory, and so its secret key, is new).
const env = (url: string): Record<string, string> => ({
  MAILROOM_DATABASE_URL: url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_ROLES: 'api,smtp',
  MAILROOM_DELIVERY_MODE: 'capture',
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_LOG_LEVEL: 'info',
  MAILROOM_HTTP_LISTEN: `127.0.0.1:${httpPort}`,
  MAILROOM_SMTP_LISTEN: `127.0.0.1:${port}:starttls`,
  MAILROOM_SMTP_TRUSTED_NETWORKS: '127.0.0.1/32',
  MAILROOM_SMTP_TRUSTED_API_KEY: KEY,
});
const start = async () => {
  for (let attempt = 1; ; attempt++) {
    const db = await freshDb();
    try {
      return { db, svc: await startService(env(db.url)) };
    } catch (err) {
      await db.drop();
      if (attempt >= 3) throw err;
      console.error(`start attempt ${attempt} failed, trying again: ${String(err).slice(0, 200)}`);
    }
  }
};
const { db, svc } = await start();
await serveUntilStdinEnds(
  async () => {
    const dom = await api(svc.url, KEY, 'POST', '/domains', { name: 'bench.example' });
    await api(svc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
    return { smtp_port: port, database_url: db.url, pid: svc.proc.pid };
  },
  async () => {
    await svc.stop();
    await db.drop();
  },
);

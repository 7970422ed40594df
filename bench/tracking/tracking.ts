// Tracking endpoints benchmark: GET /t/o/<token>.gif (pixel) and GET /t/c/<token> (redirect)
// against the real app (API role, request pipeline, token check, buffered recording), then
// against a bare node:http peer answering the same paths (bench/tracking/peer-server.ts).
//   node --import tsx bench/tracking/tracking.ts [--seconds 10] [--connections 50] [--emails 1000]
// Load: autocannon 9.0.0 in a child process (bench/tracking/load.ts), each connection cycling
// through one pixel or link per email. Database: MAILROOM_TEST_DATABASE_URL or embedded.
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import { uuid } from '../../src/lib/ids.js';
import { createLogger } from '../../src/lib/log.js';
import { sleep } from '../../src/lib/time.js';
import { TrackingSigner } from '../../src/tracking/tokens.js';
import { freshDatabase } from '../../test/helpers/db.js';

const { values: a } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    emails: { type: 'string', default: '1000' },
  },
});
const here = path.dirname(fileURLToPath(import.meta.url));
const SECRET = 'bench-instance-secret';

const db = await freshDatabase();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-bench-'));
const app = await startApp(
  loadConfig(
    { MAILROOM_LOG_LEVEL: 'silent' },
    {
      databaseUrl: db.url,
      dataDir,
      httpListen: { host: '127.0.0.1', port: 0 },
      roles: ['api'],
      secretKey: SECRET,
    },
  ),
  { log: createLogger('silent') },
);
const ids = Array.from({ length: Number(a.emails) }, () => uuid());
await db.pool.query(
  `INSERT INTO emails (id, team_id, message_id, from_header, to_addrs, subject, last_event)
   SELECT id, $2, '<' || id || '@example.com>', 'Acme <hello@example.com>', ARRAY['alice@dest.test'], 'Hello', 'delivered' FROM unnest($1::uuid[]) AS id`,
  [ids, app.defaultTeamId],
);
const signer = new TrackingSigner(SECRET);
const pixels = ids.map((id) => `/t/o/${signer.openToken(id)}.gif`);
const links = ids.map(
  (id) => `/t/c/${signer.clickToken(id, `https://shop.example.com/item?id=${id}&utm_source=mail`)}`,
);

// Asynchronous: the app under test serves from this process's event loop meanwhile.
async function load(base: string, paths: string[], status: 200 | 302) {
  const file = path.join(dataDir, `paths-${Math.random()}.json`);
  fs.writeFileSync(file, JSON.stringify(paths));
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', path.join(here, 'load.ts'), base, file, a.seconds!, a.connections!, String(status)],
    { encoding: 'utf8' },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

const mailroomPixel = await load(app.httpUrl!, pixels, 200);
const mailroomClick = await load(app.httpUrl!, links, 302);
await sleep(1_000); // the recorder flushes every 250 ms
const { rows } = await db.pool.query(
  "SELECT type, count(*)::int AS n FROM email_events WHERE type IN ('email.opened', 'email.clicked') GROUP BY type",
);
await app.close();
await db.drop();

const peer = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'peer-server.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const port = await new Promise<string>((resolve) =>
  peer.stdout.once('data', (d: Buffer) => resolve(d.toString().trim())),
);
const peerBase = `http://127.0.0.1:${port}`;
const peerPixel = await load(peerBase, pixels, 200);
const peerClick = await load(peerBase, links, 302);
peer.kill();
fs.rmSync(dataDir, { recursive: true, force: true });

console.log(
  JSON.stringify(
    {
      machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, node: process.version },
      seconds: Number(a.seconds),
      connections: Number(a.connections),
      mailroom: {
        pixel: mailroomPixel,
        redirect: mailroomClick,
        eventsWritten: Object.fromEntries(rows.map((r) => [r.type, r.n])),
      },
      peer: { pixel: peerPixel, redirect: peerClick },
    },
    null,
    2,
  ),
);

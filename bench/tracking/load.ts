// Load generator for bench/tracking (its own process, so it does not share the server's event
// loop): autocannon 9 over a list of paths, each connection cycling through them. Prints JSON, or
// fails (exit 1, the counts on stderr) when any answer is not the expected status.
import autocannon from 'autocannon';
import { allAnswered } from '../lib.js';

const [url, pathsFile, seconds, connections, status] = process.argv.slice(2);
const fs = await import('node:fs');
const paths: string[] = JSON.parse(fs.readFileSync(pathsFile, 'utf8'));
const r = await autocannon({
  url,
  connections: Number(connections),
  duration: Number(seconds),
  pipelining: 1,
  requests: paths.map((p) => ({ method: 'GET', path: p })),
});
allAnswered(`GET ${paths[0].slice(0, 5)}... on ${url}`, r, (s) => s === Number(status));
console.log(
  JSON.stringify({
    rps: Math.round(r.requests.average),
    total: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    status2xx: r['2xx'],
    status3xx: r['3xx'],
  }),
);

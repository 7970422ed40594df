// Load generator for bench/tracking (its own process, so it does not share the server's event
// loop): autocannon 9 over a list of paths, each connection cycling through them. Prints JSON.
import autocannon from 'autocannon';

const [url, pathsFile, seconds, connections] = process.argv.slice(2);
const fs = await import('node:fs');
const paths: string[] = JSON.parse(fs.readFileSync(pathsFile, 'utf8'));
const r = await autocannon({
  url, connections: Number(connections), duration: Number(seconds), pipelining: 1,
  requests: paths.map((p) => ({ method: 'GET', path: p })),
});
console.log(JSON.stringify({
  rps: Math.round(r.requests.average), total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99,
  non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, status2xx: r['2xx'], status3xx: r['3xx'],
}));

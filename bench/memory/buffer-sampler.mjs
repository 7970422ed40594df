// Loaded into the service with `--import` by bench/memory.ts when BENCH_BUFFERS=1: who allocates
// Buffers (their bytes live outside V8's heap, so the sampling heap profiler does not see them).
// Wraps the Buffer allocators user code and libraries call (from, alloc, allocUnsafe,
// allocUnsafeSlow, concat; an inner call of one by another is counted once, as the outer) and
// counts every Buffer and its bytes; a stack is taken once per 64 KB allocated (sampled by bytes,
// like V8's profiler), its first frames outside node: internals naming the site. Buffers made in
// C++ (socket reads, crypto digests) are not seen: the socket bytes read are /proc/PID/io rchar.
// SIGUSR2 (or exit) writes {buffers, bytes, sites: {site: bytes}} to $BENCH_BUFFERS_FILE.
import fs from 'node:fs';

const INTERVAL = 65536;
let depth = 0;
let buffers = 0;
let bytes = 0;
let untilSample = Math.random() * INTERVAL;
const sites = new Map();

function site() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 14;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = stack
    .split('\n')
    .slice(1)
    .map((l) => l.trim().replace(/^at /, ''))
    .filter((l) => !l.includes('buffer-sampler.mjs') && !l.includes('node:buffer'));
  return frames
    .slice(0, 4)
    .map((f) => f.replace(/file:\/\/\S*?\/(dist|node_modules)\//, '$1/').replace(/:\d+\)?$/, ')'))
    .join(' < ');
}

function counted(name) {
  const original = Buffer[name];
  Buffer[name] = function (...args) {
    depth++;
    let b;
    try {
      b = original.apply(this, args);
    } finally {
      depth--;
    }
    // Buffer.from(arrayBuffer) wraps memory that exists already: not an allocation.
    if (depth === 0 && b && !(args[0] instanceof ArrayBuffer)) {
      buffers++;
      bytes += b.length;
      untilSample -= b.length;
      if (untilSample <= 0) {
        // Each sample stands for INTERVAL bytes (an allocation bigger than that for all of its own).
        const weight = Math.max(INTERVAL, b.length);
        const s = `${name}: ${site()}`;
        sites.set(s, (sites.get(s) ?? 0) + weight);
        untilSample = Math.random() * 2 * INTERVAL;
      }
    }
    return b;
  };
}
for (const name of ['from', 'alloc', 'allocUnsafe', 'allocUnsafeSlow', 'concat']) counted(name);

let written = false;
function write() {
  if (written) return;
  written = true;
  const top = [...sites.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40);
  fs.writeFileSync(
    process.env.BENCH_BUFFERS_FILE ?? 'buffers.json',
    JSON.stringify({ buffers, bytes, sites: Object.fromEntries(top) }),
  );
}
process.on('SIGUSR2', write);
process.on('exit', write);

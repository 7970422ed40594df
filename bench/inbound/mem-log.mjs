// Loaded into the service with `--import` (BENCH_NODE_ARGS="--import ./bench/inbound/mem-log.mjs"):
// every 250 ms one line of process.memoryUsage() in MB to $BENCH_MEM_FILE, to tell the JS heap
// from Buffers' external memory at the peak of the inbound benchmark's rows.
import fs from 'node:fs';

const file = process.env.BENCH_MEM_FILE ?? '/tmp/mailroom-mem.log';
const mb = (n) => Math.round(n / 1048576);
setInterval(() => {
  const m = process.memoryUsage();
  fs.appendFileSync(
    file,
    `${Date.now()} rss=${mb(m.rss)} heapTotal=${mb(m.heapTotal)} heapUsed=${mb(m.heapUsed)} external=${mb(m.external)} arrayBuffers=${mb(m.arrayBuffers)}\n`,
  );
}, 250).unref();

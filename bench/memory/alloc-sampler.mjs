// Loaded into the service with `--import` by bench/memory.ts when BENCH_ALLOC=1: V8's sampling heap
// profiler, keeping the samples of objects already collected, so the profile says who allocates
// (garbage included), not only who holds. BENCH_ALLOC=promoted keeps only what a full collection
// freed (or still holds): objects that outlived the young generation, the promoted garbage.
// SIGUSR2 (or exit) writes it to $BENCH_ALLOC_FILE.
import fs from 'node:fs';
import inspector from 'node:inspector';

const session = new inspector.Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 65536,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: process.env.BENCH_ALLOC !== 'promoted',
});
let written = false;
const write = () => {
  if (written) return;
  written = true;
  session.post('HeapProfiler.stopSampling', (err, r) => {
    if (!err) fs.writeFileSync(process.env.BENCH_ALLOC_FILE ?? 'alloc.heapprofile', JSON.stringify(r.profile));
  });
};
process.on('SIGUSR2', write);
process.on('exit', write);

// Loaded into the service with `--import` by bench/memory.ts when BENCH_ALLOC=1: V8's sampling heap
// profiler, keeping the samples of objects already collected, so the profile says who allocates
// (garbage included), not only who holds. SIGUSR2 writes it to $BENCH_ALLOC_FILE.
import fs from 'node:fs';
import inspector from 'node:inspector';

const session = new inspector.Session();
session.connect();
session.post('HeapProfiler.enable');
session.post('HeapProfiler.startSampling', {
  samplingInterval: 65536,
  includeObjectsCollectedByMajorGC: true,
  includeObjectsCollectedByMinorGC: true,
});
process.on('SIGUSR2', () => {
  session.post('HeapProfiler.stopSampling', (err, r) => {
    if (!err) fs.writeFileSync(process.env.BENCH_ALLOC_FILE ?? 'alloc.heapprofile', JSON.stringify(r.profile));
  });
});

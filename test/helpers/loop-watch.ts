// Watches this process's event loop while a test runs: the longest gap between ticks of a 5 ms
// timer (wall time: includes the time the OS did not run us, up to ~400 ms on this loaded 2-core
// machine with an idle loop) and the longest time the loop was busy between two ticks. Busy is the
// CPU the main thread (the event loop's; worker threads and the libuv pool are other threads) used
// between two ticks, read from /proc: a synchronous inflate or parse shows in full, and neither
// waiting for a CPU nor being descheduled in the middle of a short callback does. CI saw event-loop
// utilization's active time (wall time inside callbacks) reach 408-438 ms at load 18 for work that
// took a few ms of CPU. Where /proc has no per-thread figures, it falls back to that active time.
import fs from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

export interface LoopStalls {
  worstGapMs: number;
  worstBusyMs: number;
}

const MAIN_THREAD_STAT = `/proc/self/task/${process.pid}/stat`;

/** CPU milliseconds (user + system) the main thread has used; undefined without /proc. */
function mainThreadCpuMs(): number | undefined {
  try {
    const f = fs.readFileSync(MAIN_THREAD_STAT, 'utf8').split(') ')[1].split(' ');
    return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms (USER_HZ = 100)
  } catch {
    return undefined;
  }
}

export function watchLoop(): { stop(): LoopStalls } {
  let worstGapMs = 0;
  let worstBusyMs = 0;
  let last = performance.now();
  let elu: EventLoopUtilization = performance.eventLoopUtilization();
  let cpu = mainThreadCpuMs();
  const tick = () => {
    const now = performance.now();
    const next = performance.eventLoopUtilization();
    const nextCpu = mainThreadCpuMs();
    const busy = cpu !== undefined && nextCpu !== undefined ? nextCpu - cpu : next.active - elu.active;
    worstGapMs = Math.max(worstGapMs, now - last);
    worstBusyMs = Math.max(worstBusyMs, busy);
    last = now;
    elu = next;
    cpu = nextCpu;
  };
  const timer = setInterval(tick, 5);
  let result: LoopStalls | undefined;
  return {
    /** Stops watching (once; later calls return the same figures). */
    stop() {
      if (!result) {
        tick();
        clearInterval(timer);
        result = { worstGapMs, worstBusyMs };
      }
      return result;
    },
  };
}

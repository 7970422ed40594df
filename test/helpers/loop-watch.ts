// Watches this process's event loop while a test runs: the longest gap between ticks of a 5 ms
// timer (wall time: includes the time the OS did not run us, up to ~400 ms on this loaded 2-core
// machine with an idle loop) and the longest time the loop was busy between two ticks (event-loop
// utilization's active time: a synchronous inflate or parse shows in full, waiting for a CPU does not).
import { performance, type EventLoopUtilization } from 'node:perf_hooks';

export interface LoopStalls {
  worstGapMs: number;
  worstBusyMs: number;
}

export function watchLoop(): { stop(): LoopStalls } {
  let worstGapMs = 0;
  let worstBusyMs = 0;
  let last = performance.now();
  let elu: EventLoopUtilization = performance.eventLoopUtilization();
  const tick = () => {
    const now = performance.now();
    const next = performance.eventLoopUtilization();
    worstGapMs = Math.max(worstGapMs, now - last);
    worstBusyMs = Math.max(worstBusyMs, next.active - elu.active);
    last = now;
    elu = next;
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

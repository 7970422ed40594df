// Runs a task every `intervalMs` (first run after `firstDelayMs`), never overlapping itself,
// and stops cleanly: stop() waits for a run in progress. Used for DNS re-checks and retention.
import type { Logger } from './log.js';

export interface Periodic {
  stop(): Promise<void>;
  runNow(): Promise<void>;
}

export function every(
  name: string,
  intervalMs: number,
  task: () => Promise<unknown>,
  log: Logger,
  firstDelayMs = intervalMs,
): Periodic {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const run = async (): Promise<void> => {
    if (running) return running;
    running = (async () => {
      try {
        await task();
      } catch (err) {
        log.error(`${name} failed`, { err });
      } finally {
        running = undefined;
      }
    })();
    return running;
  };
  const schedule = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(async () => {
      await run();
      schedule(intervalMs);
    }, ms);
    timer.unref();
  };
  schedule(firstDelayMs);
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
    runNow: run,
  };
}

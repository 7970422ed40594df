// Polls until a condition holds (every 25 ms), or fails naming what it waited for: bounded, so a
// test that waits for something that never comes stops by itself.
import { sleep } from '../../src/lib/time.js';

export async function until<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

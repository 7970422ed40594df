// Cleanup that finishes: runs every close step in order even when one fails, then reports the
// first failure. One broken step (a database that will not drop) must not leave servers, pools or
// timers running, which would keep the test file alive until its timeout.
export async function closeAll(...steps: (() => unknown)[]): Promise<void> {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (e) {
      failures.push(e);
    }
  }
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1)
    throw new AggregateError(
      failures,
      `${failures.length} cleanup steps failed: ${failures.map((f) => (f as Error)?.message ?? String(f)).join('; ')}`,
    );
}

// lib/worker-task.ts, the thread the document renderer (render/mjml.ts) and the DMARC report
// reader run in: a call past its deadline ends the worker (CPU-bound work cannot be interrupted
// any other way) and fails with 'timeout', the next call starts a fresh worker; calls beyond the
// queue bound are refused at once with 'busy'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { siblingModule, WorkerTask, WorkerTaskError } from '../../src/lib/worker-task.js';

const SPIN = siblingModule(import.meta.url, '../fixtures/spin.worker');

test('a call that outlives its deadline fails with timeout; the next call gets a fresh worker', async () => {
  const task = new WorkerTask<number, number>(SPIN, { timeoutMs: 3000, maxPending: 4, maxHeapMb: 64 });
  try {
    assert.equal(await task.run(1), 1); // started (tsx in the worker takes a moment)
    const t0 = Date.now();
    await assert.rejects(task.run(60_000), (e) => e instanceof WorkerTaskError && e.reason === 'timeout');
    assert.ok(Date.now() - t0 < 10_000, 'ended at its deadline, not after the minute of work');
    assert.equal(await task.run(5), 5);
  } finally {
    await task.close();
  }
});

test('calls beyond maxPending are refused at once with busy', async () => {
  const task = new WorkerTask<number, number>(SPIN, { timeoutMs: 20_000, maxPending: 2, maxHeapMb: 64 });
  try {
    const running = [task.run(300), task.run(300)];
    await assert.rejects(task.run(1), (e) => e instanceof WorkerTaskError && e.reason === 'busy');
    assert.deepEqual(await Promise.all(running), [300, 300]);
  } finally {
    await task.close();
  }
});

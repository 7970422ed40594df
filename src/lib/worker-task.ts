// One reusable worker thread that runs a module's function off the event loop (CPU-bound work on
// untrusted input: parsing a 49 MB XML takes 12.5 s). Started on first use and ended when idle;
// keeps the process alive only while calls wait for it; a call that outlives its deadline ends the worker (the next call
// starts a fresh one); calls beyond a queue bound are refused at once rather than held in memory.
import { isMainThread, parentPort, Worker } from 'node:worker_threads';

export interface WorkerTaskOptions {
  timeoutMs: number;
  /** Calls waiting or running at once; more are refused (WorkerTaskError 'busy'). */
  maxPending: number;
  /** Heap of the worker, MB: past it the worker dies and its calls fail, the process lives on. */
  maxHeapMb: number;
  idleMs?: number;
}

export class WorkerTaskError extends Error {
  constructor(
    readonly reason: 'busy' | 'timeout' | 'failed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * The worker module next to `metaUrl` named `name`: the compiled .js in production, the .ts
 * source when running under tsx (tests), which a worker cannot load by itself on Node 20.
 */
export function siblingModule(metaUrl: string, name: string): URL {
  return new URL(`./${name}${metaUrl.endsWith('.ts') ? '.ts' : '.js'}`, metaUrl);
}

type Pending = { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout };

export class WorkerTask<I, O> {
  private worker?: Worker;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private idle?: NodeJS.Timeout;

  constructor(
    private readonly module: URL,
    private readonly opts: WorkerTaskOptions,
  ) {}

  run(input: I): Promise<O> {
    if (this.pending.size >= this.opts.maxPending)
      return Promise.reject(new WorkerTaskError('busy', `${this.pending.size} calls already waiting`));
    clearTimeout(this.idle);
    const w = (this.worker ??= this.start());
    w.ref();
    const id = this.nextId++;
    return new Promise<O>((resolve, reject) => {
      const timer = setTimeout(
        () => void this.end(new WorkerTaskError('timeout', `no answer within ${this.opts.timeoutMs} ms`)),
        this.opts.timeoutMs,
      );
      timer.unref();
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer });
      w.postMessage({ id, input });
    });
  }

  /** Ends the worker (if any); calls still running fail. */
  async close(): Promise<void> {
    await this.end(new WorkerTaskError('failed', 'the worker was closed'));
  }

  private start(): Worker {
    const resourceLimits = { maxOldGenerationSizeMb: this.opts.maxHeapMb };
    const href = this.module.href;
    const w = href.endsWith('.ts')
      ? new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => m.register()).then(() => import(${JSON.stringify(href)}))`,
          { eval: true, resourceLimits },
        )
      : new Worker(this.module, { resourceLimits });
    w.on('message', (m: { id: number; output?: unknown; error?: string }) => {
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error !== undefined) p.reject(new WorkerTaskError('failed', m.error));
      else p.resolve(m.output);
      if (!this.pending.size && this.worker === w) {
        w.unref(); // after the listeners: adding a 'message' listener refs the worker again
        this.idle = setTimeout(() => void this.end(new WorkerTaskError('failed', 'idle')), this.opts.idleMs ?? 30_000);
        this.idle.unref();
      }
    });
    w.on('error', (err) => {
      if (this.worker === w) void this.end(new WorkerTaskError('failed', `the worker failed: ${err.message}`));
    });
    w.on('exit', (code) => {
      if (this.worker === w) void this.end(new WorkerTaskError('failed', `the worker exited (${code})`));
    });
    return w;
  }

  private async end(err: WorkerTaskError): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    clearTimeout(this.idle);
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(err);
    }
    this.pending.clear();
    await w?.terminate();
  }
}

/** In the worker module: answers each call with `fn(input)`. */
export function serveTask<I, O>(fn: (input: I) => O | Promise<O>): void {
  if (isMainThread || !parentPort) throw new Error('serveTask runs in a worker thread');
  const port = parentPort;
  port.on('message', async ({ id, input }: { id: number; input: I }) => {
    try {
      port.postMessage({ id, output: await fn(input) });
    } catch (err) {
      port.postMessage({ id, error: (err as Error).message ?? String(err) });
    }
  });
}

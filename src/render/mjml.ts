// A checked document rendered to email HTML with MJML (mjml 5.4.1: responsive tables, inline
// styles, Outlook conditional comments) and to plain text. Rendering is CPU work on a user's
// document, so the API runs it in one worker thread (mjml.worker.ts through lib/worker-task.ts):
// the event loop never waits on it, at most RENDER_QUEUE renders wait or run at once (more are
// refused with 503), and a render that outlives RENDER_TIMEOUT_MS ends the worker.
import { AppError } from '../errors.js';
import { siblingModule, WorkerTask, WorkerTaskError } from '../lib/worker-task.js';
import type { EmailDocument } from './document-types.js';
import type { RenderedDocument } from './mjml-render.js';

export type { RenderedDocument };

// Measured (bench/document-render.ts, BENCHMARKS.md; compiled, 2 cores at load 19-21): the
// worker's start with its first render 2.6-3.6 s (loading MJML); 80-97 ms of CPU for a 200-block
// document, 7-11 ms for a small one, wall times up to 643 ms under that load. The 20 s deadline is
// 30 times the worst render and covers a cold start; the worker stays up 10 minutes after its
// last render so that an editing session pays the start once.
export const RENDER_TIMEOUT_MS = 20_000;
export const RENDER_QUEUE = 32;
const renderer = new WorkerTask<EmailDocument, RenderedDocument>(siblingModule(import.meta.url, 'mjml.worker'), {
  timeoutMs: RENDER_TIMEOUT_MS,
  maxPending: RENDER_QUEUE,
  maxHeapMb: 512,
  idleMs: 600_000,
});

/** renderDocumentHere in the worker thread; busy or stuck: 503 (the caller may retry). */
export async function renderDocument(doc: EmailDocument): Promise<RenderedDocument> {
  try {
    return await renderer.run(doc);
  } catch (err) {
    if (err instanceof WorkerTaskError && err.reason !== 'failed')
      throw new AppError(
        'service_unavailable',
        `The document renderer is ${err.reason === 'busy' ? 'busy' : 'overloaded'}; retry shortly.`,
      );
    throw err;
  }
}

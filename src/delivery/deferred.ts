// Emails whose body is rendered when needed rather than stored: a broadcast's emails keep only
// their recipient's personalization values (emails.personalization); the broadcast holds the
// message. The renderer lives above this layer (broadcasts/bodies.ts) and is handed down by the
// composition root to delivery (deliver.job.ts) and to the readers (GET /emails/:id, raw, share).
import type { DeferredEmail } from '../store/emails.js';

export type { DeferredEmail };

export interface RenderedBody {
  html: string | null;
  text: string | null;
  raw: Buffer;
}

export interface DeferredBodies {
  /** The email's body as sent; undefined when it cannot be rendered any more (its broadcast is gone). */
  render(e: DeferredEmail): Promise<RenderedBody | undefined>;
}

/** Whether the row is one whose body is rendered on demand. */
export const isDeferred = (e: { broadcast_id?: string | null; personalization?: unknown }): boolean =>
  Boolean(e.broadcast_id) && e.personalization !== null && e.personalization !== undefined;

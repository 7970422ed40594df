// A broadcast email's body, rendered when it is needed (delivery, GET /emails/:id, the raw view)
// from the broadcast's message (fixed once sent) and the email's personalization values, through
// the send path's own composition (unsubscribe link, tracking, MIME with the email's Message-ID
// and date). The broadcast's compiled message and the team's property fallbacks are kept a minute
// (a broadcast's message cannot change once sent).
import type { DeferredBodies, DeferredEmail, RenderedBody } from '../delivery/deferred.js';
import type { EmailSender } from '../emails/send.js';
import type { Pool } from '../store/db.js';
import { broadcastFindById } from '../store/broadcasts.js';
import { contactPropertiesFind } from '../store/contact-properties.js';
import { BroadcastMessage, type Personalization } from './message.js';
import { cachedLoad, TtlCache } from '../lib/ttl-cache.js';

const KEEP_MS = 60_000;
const MAX_ENTRIES = 200;

export async function propertyFallbacks(pool: Pool, teamId: string): Promise<Record<string, string | number | null>> {
  const defs = await contactPropertiesFind(pool, teamId);
  return Object.fromEntries(
    defs.map((d) => [d.key, (d as { fallback_value?: string | number | null }).fallback_value ?? null]),
  );
}

export class BroadcastBodies implements DeferredBodies {
  private readonly messages = new TtlCache<Promise<BroadcastMessage | undefined>>(KEEP_MS, MAX_ENTRIES);

  constructor(
    private readonly pool: Pool,
    private readonly sender: EmailSender,
  ) {}

  /** A broadcast's message as its expansion compiled it (undefined: no such broadcast). */
  message(broadcastId: string): Promise<BroadcastMessage | undefined> {
    return cachedLoad(this.messages, broadcastId, async () => {
      const b = await broadcastFindById(this.pool, broadcastId);
      return b ? new BroadcastMessage(b, await propertyFallbacks(this.pool, b.team_id)) : undefined;
    });
  }

  async render(e: DeferredEmail): Promise<RenderedBody | undefined> {
    if (!e.broadcast_id || !e.personalization) return undefined;
    const msg = await this.message(e.broadcast_id);
    if (!msg) return undefined;
    // Tracking as the domain had it at expansion (kept with the values): a later change of the
    // domain's settings does not change what was sent.
    const p = e.personalization as Personalization;
    const domain = {
      name: msg.from.domain,
      open_tracking: p.open_tracking === true,
      click_tracking: p.click_tracking === true,
    };
    const req = msg.requestFor(BroadcastMessage.recipientOf(e.to_addrs[0], p));
    const date = e.created_at instanceof Date ? e.created_at : new Date(e.created_at);
    return this.sender.composeStored(req, { id: e.id, messageId: e.message_id, date }, domain);
  }
}

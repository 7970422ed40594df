// The body a receiver gets: Resend's envelope {type, created_at, data}, with `data` keys in the
// order of the docs' examples (jsonb stores them sorted by length) so that payloads read naturally.
const EMAIL_ORDER = [
  'broadcast_id',
  'template_id',
  'created_at',
  'email_id',
  'from',
  'to',
  'subject',
  'message_id',
  'tags',
  'headers',
];
const CONTACT_ORDER = [
  'id',
  'audience_id',
  'segment_ids',
  'created_at',
  'updated_at',
  'email',
  'first_name',
  'last_name',
  'unsubscribed',
];

export function envelopeBody(type: string, createdAt: Date, data: Record<string, unknown>): string {
  const ordered: Record<string, unknown> = {};
  for (const k of type.startsWith('contact.') ? CONTACT_ORDER : EMAIL_ORDER) if (k in data) ordered[k] = data[k];
  for (const [k, v] of Object.entries(data)) if (!(k in ordered)) ordered[k] = v;
  return JSON.stringify({ type, created_at: createdAt.toISOString(), data: ordered });
}

// One event goes to every subscribed endpoint: its body is built once and reused while the event's
// data is unchanged (the cached entry keeps the data's JSON text and is used only on an exact
// match, so an event redacted meanwhile gets a new body). Bounded; the oldest entries go first.
const BODY_CACHE_MAX = 5_000;
const bodyCache = new Map<string, { type: string; at: number; json: string; body: string }>();

export function envelopeBodyFromJson(eventId: string, type: string, createdAt: Date, dataJson: string): string {
  const at = createdAt.getTime();
  const hit = bodyCache.get(eventId);
  if (hit && hit.json === dataJson && hit.type === type && hit.at === at) return hit.body;
  const body = envelopeBody(type, createdAt, JSON.parse(dataJson) as Record<string, unknown>);
  if (hit) bodyCache.delete(eventId);
  else if (bodyCache.size >= BODY_CACHE_MAX) bodyCache.delete(bodyCache.keys().next().value as string);
  bodyCache.set(eventId, { type, at, json: dataJson, body });
  return body;
}

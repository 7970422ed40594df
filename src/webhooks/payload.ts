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

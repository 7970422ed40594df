// A broadcast rendered as one contact would get it (GET|POST /broadcasts/:id/preview, Mailroom's
// own): built by the same BroadcastMessage the expansion and the test send use (the shared
// personalization renderer, the preview text as a hidden preheader, the text part). The contact is
// named by `contact_id` or `email` (an address that is no contact is rendered with only its
// address, as a test send is). Unsaved `subject`, `html`, `text`, `preview_text`, `from` and
// `document` may be laid over the saved broadcast, checked as PATCH checks them. Nothing is stored or sent;
// {{{RESEND_UNSUBSCRIBE_URL}}} stays as written (the send path fills it per email).
import { invalidField, missingField, notFound } from '../errors.js';
import { shown } from '../mime/addresses.js';
import { isUuid } from '../lib/ids.js';
import type { Pool } from '../store/db.js';
import { broadcastFind } from '../store/broadcasts.js';
import { contactFind } from '../store/contacts.js';
import { contactPropertiesFind } from '../store/contact-properties.js';
import { contentOf } from './input.js';
import { BroadcastMessage } from './message.js';

const OVERRIDES = ['subject', 'html', 'text', 'preview_text', 'from', 'document'] as const;

async function recipientOf(pool: Pool, teamId: string, q: Record<string, unknown>) {
  if (q.contact_id !== undefined && q.contact_id !== null && q.contact_id !== '') {
    const id = q.contact_id;
    if (typeof id !== 'string' || !isUuid(id))
      throw invalidField('contact_id', 'must be the id of one of your contacts.');
    const c = await contactFind(pool, teamId, { id: id.toLowerCase() });
    if (!c) throw invalidField('contact_id', `no contact has the id ${shown(id)}.`);
    return { recipient: c, contact: c };
  }
  if (q.email !== undefined && q.email !== null && q.email !== '') {
    if (typeof q.email !== 'string' || q.email.length > 320) throw invalidField('email', 'must be an email address.');
    const address = q.email.trim();
    const c = await contactFind(pool, teamId, { email: address.toLowerCase() });
    return { recipient: c ?? { email: address }, contact: c };
  }
  throw missingField('contact_id` or `email');
}

export async function broadcastPreview(
  pool: Pool,
  teamId: string,
  id: string,
  q: Record<string, unknown>,
  overrides: Record<string, unknown>,
) {
  const b = isUuid(id) ? await broadcastFind(pool, teamId, id.toLowerCase()) : undefined;
  if (!b) throw notFound('Broadcast');
  const { recipient, contact } = await recipientOf(pool, teamId, q);
  const changes = Object.fromEntries(OVERRIDES.filter((k) => overrides[k] !== undefined).map((k) => [k, overrides[k]]));
  const content = Object.keys(changes).length ? await contentOf(pool, teamId, changes, b) : b;
  if (!content.from_header) throw missingField('from');
  const defs = await contactPropertiesFind(pool, teamId);
  const msg = new BroadcastMessage(
    { ...b, ...content },
    Object.fromEntries(
      defs.map((d) => [d.key, (d as { fallback_value?: string | number | null }).fallback_value ?? null]),
    ),
  );
  const req = msg.requestFor(recipient, { test: true });
  return {
    object: 'broadcast_preview' as const,
    id: b.id,
    contact: contact
      ? { id: contact.id, email: contact.email, first_name: contact.first_name, last_name: contact.last_name }
      : null,
    from: content.from_header,
    to: recipient.email,
    subject: req.subject,
    html: req.html ?? null,
    text: req.text ?? null,
  };
}

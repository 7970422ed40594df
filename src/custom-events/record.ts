// Recording custom events (POST /events/send, resend-compat 8.1) and a contact's history. The one way
// in is customEventRecord(tx, ...), in the caller's transaction. With `email`, no contact is created
// here: the address is recorded, and whoever needs the contact later (an automation run) creates it.
import { invalidField, missingField } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { contactEmail } from '../contacts/input.js';
import { contactOf } from '../contacts/service.js';
import { customEventContextFind, customEventInsert, customEventListByContact, type CustomEventRow } from '../store/custom-events.js';
import { withTx, type Pool, type Queryable, type Tx } from '../store/db.js';
import type { IdempotencyCompletion } from '../store/emails.js';
import { idempotencyComplete } from '../store/idempotency.js';
import type { PageQuery } from '../store/paginate.js';
import { customEventName, customEventPayloadCoerce, customEventPayloadOf } from './schema.js';

/** Whom an event is about: a contact by id (must exist), or an address (a contact may not exist yet). */
export type CustomEventSubject = { contactId: string } | { email: string };

export interface CustomEventInput { name: string; subject: CustomEventSubject; payload: Record<string, unknown> }

/** A send body checked for shape (no database): event name, exactly one of contact_id/email, payload. */
export function customEventInputOf(body: Record<string, unknown>): CustomEventInput {
  const name = customEventName(body.event, 'event');
  const hasId = body.contact_id !== undefined && body.contact_id !== null;
  const hasEmail = body.email !== undefined && body.email !== null;
  if (hasId && hasEmail) throw invalidField('contact_id', 'give exactly one of `contact_id` or `email`, not both.');
  if (!hasId && !hasEmail) throw missingField('contact_id` or `email');
  let subject: CustomEventSubject;
  if (hasId) {
    if (typeof body.contact_id !== 'string' || !isUuid(body.contact_id)) throw invalidField('contact_id', 'must be a contact id (a UUID).');
    subject = { contactId: body.contact_id.toLowerCase() };
  } else {
    subject = { email: contactEmail(body.email) };
  }
  return { name, subject, payload: customEventPayloadOf(body.payload) };
}

/**
 * THE seam for everything that reacts to custom events: resolves the subject, checks and coerces
 * the payload against the team's definition of the event (if any), and inserts the event, all in
 * `tx`. A caller that must act on the event (an automation trigger enqueuing runs) does so in the
 * same transaction, after this returns.
 */
export async function customEventRecord(tx: Tx, teamId: string, input: CustomEventInput): Promise<CustomEventRow> {
  const { schema, contact } = await customEventContextFind(tx, teamId, input.name, input.subject);
  if (!contact && 'contactId' in input.subject) throw invalidField('contact_id', `no contact has the id ${input.subject.contactId}.`);
  const email = contact?.email ?? (input.subject as { email: string }).email;
  const payload = customEventPayloadCoerce(schema, input.payload);
  return customEventInsert(tx, teamId, { name: input.name, contact_id: contact?.id ?? null, email, payload });
}

type Complete = (status: number, body: unknown) => IdempotencyCompletion | undefined;
/** What reacts to a recorded event in its transaction (automations: start and resume runs); supplied from above. */
export type CustomEventReaction = (tx: Tx, teamId: string, event: CustomEventRow) => Promise<void>;

/**
 * POST /events/send → 202 `{object: "event", event}` once the event is committed. `complete` (from
 * withIdempotency) gives the key to mark answered in the same transaction.
 */
export async function customEventSend(pool: Pool, teamId: string, body: Record<string, unknown>, complete: Complete = () => undefined, react?: CustomEventReaction) {
  const input = customEventInputOf(body);
  const response = { object: 'event' as const, event: input.name };
  await withTx(pool, async (tx) => {
    const event = await customEventRecord(tx, teamId, input);
    await react?.(tx, teamId, event);
    const done = complete(202, response);
    if (done) await idempotencyComplete(tx, { teamId: done.team_id, method: done.method, path: done.path, key: done.key }, done.response_status, done.response_body);
  });
  return response;
}

const view = (e: CustomEventRow) => ({ object: 'custom_event' as const, id: e.id, event: e.name, contact_id: e.contact_id, email: e.email, payload: e.payload, created_at: e.created_at });

/** GET /contacts/:id_or_email/events (a Mailroom extension): the contact's custom events, newest first. */
export async function customEventHistory(db: Queryable, teamId: string, idOrEmail: string, page: PageQuery) {
  const c = await contactOf(db, teamId, idOrEmail);
  const p = await customEventListByContact(db, teamId, c, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(view) };
}

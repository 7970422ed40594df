// Recording custom events (POST /events/send, resend-compat 8.1) and a contact's history. The one way
// in is customEventSend (group commit, queued for the automations). With `email`, no contact is created
// here: the address is recorded, and whoever needs the contact later (an automation run) creates it.
import { invalidField, missingField } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { contactEmail } from '../contacts/input.js';
import { contactOf } from '../contacts/service.js';
import { Batcher } from '../queue/batcher.js';
import {
  customEventContextFindMany,
  customEventListByContact,
  customEventsInsertBatch,
  type CustomEventContextAsk,
  type CustomEventNew,
  type CustomEventRow,
} from '../store/custom-events.js';
import type { Pool, Queryable } from '../store/db.js';
import type { IdempotencyCompletion } from '../store/emails.js';
import type { PageQuery } from '../store/paginate.js';
import { customEventName, customEventPayloadCoerce, customEventPayloadOf } from './schema.js';

/** Whom an event is about: a contact by id (must exist), or an address (a contact may not exist yet). */
export type CustomEventSubject = { contactId: string } | { email: string };

export interface CustomEventInput {
  name: string;
  subject: CustomEventSubject;
  payload: Record<string, unknown>;
}

/** A send body checked for shape (no database): event name, exactly one of contact_id/email, payload. */
export function customEventInputOf(body: Record<string, unknown>): CustomEventInput {
  const name = customEventName(body.event, 'event');
  const hasId = body.contact_id !== undefined && body.contact_id !== null;
  const hasEmail = body.email !== undefined && body.email !== null;
  if (hasId && hasEmail) throw invalidField('contact_id', 'give exactly one of `contact_id` or `email`, not both.');
  if (!hasId && !hasEmail) throw missingField('contact_id` or `email');
  let subject: CustomEventSubject;
  if (hasId) {
    if (typeof body.contact_id !== 'string' || !isUuid(body.contact_id))
      throw invalidField('contact_id', 'must be a contact id (a UUID).');
    subject = { contactId: body.contact_id.toLowerCase() };
  } else {
    subject = { email: contactEmail(body.email) };
  }
  return { name, subject, payload: customEventPayloadOf(body.payload) };
}

type Complete = (status: number, body: unknown) => IdempotencyCompletion | undefined;

interface Pending {
  event: CustomEventNew;
  completion?: IdempotencyCompletion;
}
interface Batchers {
  context: Batcher<CustomEventContextAsk, CustomEventContext>;
  commit: Batcher<Pending, CustomEventRow>;
}
type CustomEventContext = Awaited<ReturnType<typeof customEventContextFindMany>>[number];
const batchers = new WeakMap<Pool, Batchers>();
/** Per pool: the look-ups of concurrent requests share one read, and their events one commit (one statement each). */
function batchersOf(pool: Pool): Batchers {
  let b = batchers.get(pool);
  if (!b) {
    b = {
      context: new Batcher((asks) => customEventContextFindMany(pool, asks)),
      commit: new Batcher((items) =>
        customEventsInsertBatch(
          pool,
          items.map((i) => i.event),
          items.flatMap((i) => (i.completion ? [i.completion] : [])),
        ),
      ),
    };
    batchers.set(pool, b);
  }
  return b;
}

/**
 * POST /events/send → 202 `{object: "event", event}` once the event is committed: `input` is the
 * body checked for shape (customEventInputOf, before the idempotency key hashes it); the subject and
 * payload are checked here (one read shared with concurrent requests), then the event is committed with other requests' events in
 * one statement (customEventsInsertBatch) that also queues it for the automations that listen for
 * it; the automations.event job starts and resumes their runs, in the order events were recorded.
 * `complete` (from withIdempotency) gives the key to mark answered in the same statement.
 */
export async function customEventSend(
  pool: Pool,
  teamId: string,
  input: CustomEventInput,
  complete: Complete = () => undefined,
) {
  const response = { object: 'event' as const, event: input.name };
  const b = batchersOf(pool);
  const { schema, contact } = await b.context.add({ teamId, name: input.name, subject: input.subject });
  if (!contact && 'contactId' in input.subject)
    throw invalidField('contact_id', `no contact has the id ${input.subject.contactId}.`);
  const email = contact?.email ?? (input.subject as { email: string }).email;
  const payload = customEventPayloadCoerce(schema, input.payload);
  const completion = complete(202, response);
  await b.commit.add({
    event: { team_id: teamId, name: input.name, contact_id: contact?.id ?? null, email, payload },
    ...(completion ? { completion } : {}),
  });
  return response;
}

const view = (e: CustomEventRow) => ({
  object: 'custom_event' as const,
  id: e.id,
  event: e.name,
  contact_id: e.contact_id,
  email: e.email,
  payload: e.payload,
  created_at: e.created_at,
});

/** GET /contacts/:id_or_email/events (a Mailroom extension): the contact's custom events, newest first. */
export async function customEventHistory(db: Queryable, teamId: string, idOrEmail: string, page: PageQuery) {
  const c = await contactOf(db, teamId, idOrEmail);
  const p = await customEventListByContact(db, teamId, c, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(view) };
}

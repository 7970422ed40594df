// Contacts (resend-compat 7.1): create, read, list, update, delete by id or address, per team.
// Every change records its contact.created|updated|deleted event in the same transaction (the
// webhook outbox signs, retries and logs it). Returns Resend's wire shapes.
import type { EventType } from '../events/types.js';
import { invalidField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  contactDelete,
  contactEventInsert,
  contactEventsInsertWithSegments,
  contactFind,
  contactInsert,
  contactList,
  contactUpdate,
  type ContactFields,
  type ContactRow,
} from '../store/contacts.js';
import { contactEmail, contactInput } from './input.js';
import { propertiesCheck, propertiesEffective } from './properties.js';
import { contactTopicsOf, contactTopicsSet, topicChoices } from './topics.js';
import {
  contactSegmentAdd,
  contactSegmentRemove,
  contactSegmentsList,
  segmentMembersAdd,
  segmentOf,
  segmentRefs,
} from './segments.js';
import { segmentIdsOfContact } from '../store/segments.js';
import { segmentContactsPage, segmentHasContact } from '../store/segment-contacts.js';
import { refuseMembershipFields } from './refs.js';

type ContactEventType = Extract<EventType, 'contact.created' | 'contact.updated' | 'contact.deleted'>;

/** The webhook `data` (resend-compat 9.3); no segments exist yet, hence null and []. */
const eventData = (c: ContactRow, segmentIds: string[]) => ({
  id: c.id,
  audience_id: segmentIds[0] ?? null,
  segment_ids: segmentIds,
  created_at: c.created_ts.toISOString(),
  updated_at: c.updated_ts.toISOString(),
  email: c.email,
  first_name: c.first_name,
  last_name: c.last_name,
  unsubscribed: c.unsubscribed,
});

/** Records a contact.* event for `c` in the caller's transaction (also used by unsubscribe.ts). */
export const recordEvent = async (
  tx: Parameters<typeof contactEventInsert>[0],
  type: ContactEventType,
  c: ContactRow,
) =>
  contactEventInsert(
    tx,
    c.team_id,
    c.id,
    type,
    eventData(c, type === 'contact.deleted' ? [] : await segmentIdsOfContact(tx, c.id)),
  );

/** recordEvent(tx, 'contact.created', c) for many new contacts in one statement: the same rows, the same webhook data. */
export const recordCreatedMany = (tx: Parameters<typeof contactEventInsert>[0], cs: ContactRow[]) =>
  contactEventsInsertWithSegments(
    tx,
    cs.map((c) => ({ teamId: c.team_id, contactId: c.id, type: 'contact.created', data: eventData(c, []) })),
  );

/**
 * recordEvent for many contacts in one statement (bulk operations): contact.updated with the segments
 * read in the same statement, contact.deleted with none (their memberships went with them).
 */
export const recordMany = (
  tx: Parameters<typeof contactEventInsert>[0],
  type: 'contact.updated' | 'contact.deleted',
  cs: ContactRow[],
) =>
  contactEventsInsertWithSegments(
    tx,
    cs.map((c) => ({ teamId: c.team_id, contactId: c.id, type, data: eventData(c, []) })),
  );

/**
 * A path's id or address. Anything else cannot name a contact (undefined). The router has
 * already percent-decoded the segment, so both `a@b.c` and `a%40b.c` arrive here as `a@b.c`.
 */
function keyOf(idOrEmail: string): { id: string } | { email: string } | undefined {
  if (isUuid(idOrEmail)) return { id: idOrEmail.toLowerCase() };
  try {
    return { email: contactEmail(idOrEmail) };
  } catch {
    return undefined;
  }
}

const UNIQUE_EMAIL = 'contacts_team_id_email_key';
const isEmailTaken = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23505' &&
  (err as { constraint?: string }).constraint === UNIQUE_EMAIL;

/**
 * Creates the contact, or, when the team already has one with that address, changes nothing and
 * answers with the existing id (`created: false`): a create is safe to repeat.
 */
export async function contactCreate(
  pool: Pool,
  teamId: string,
  body: Record<string, unknown>,
): Promise<{ created: boolean; body: { object: 'contact'; id: string } }> {
  const input = contactInput(body, true);
  const stored = Object.fromEntries(
    Object.entries(input.properties ?? {}).filter(([, v]) => v !== null),
  ) as ContactFields['properties'];
  const fields: ContactFields = {
    email: input.email!,
    first_name: input.first_name ?? null,
    last_name: input.last_name ?? null,
    unsubscribed: input.unsubscribed ?? false,
    properties: stored,
  };
  // A concurrent delete can remove the row found by the conflict between the two statements: try again.
  for (let attempt = 0; ; attempt++) {
    const out = await withTx(pool, async (tx) => {
      await propertiesCheck(tx, teamId, input.properties ?? {});
      const topics = await topicChoices(tx, teamId, body.topics);
      const segments = [
        ...(await segmentRefs(tx, teamId, body.segments)),
        ...(await segmentRefs(
          tx,
          teamId,
          body.audience_id === undefined || body.audience_id === null ? undefined : [body.audience_id],
          'audience_id',
        )),
      ];
      const row = await contactInsert(tx, teamId, fields);
      if (row) {
        await contactTopicsSet(tx, row.id, topics);
        await segmentMembersAdd(tx, row.id, segments);
        await recordEvent(tx, 'contact.created', row);
        return { created: true, id: row.id };
      }
      const existing = await contactFind(tx, teamId, { email: fields.email });
      return existing && { created: false, id: existing.id };
    });
    if (out) return { created: out.created, body: { object: 'contact', id: out.id } };
    if (attempt >= 2) throw new Error('contact create kept racing with deletes');
  }
}

export async function contactGet(pool: Pool, teamId: string, idOrEmail: string) {
  const key = keyOf(idOrEmail);
  const c = key && (await contactFind(pool, teamId, key));
  if (!c) throw notFound('Contact');
  return {
    object: 'contact' as const,
    id: c.id,
    email: c.email,
    first_name: c.first_name,
    last_name: c.last_name,
    created_at: c.created_at,
    unsubscribed: c.unsubscribed,
    properties: await propertiesEffective(pool, teamId, c.properties),
  };
}

/** GET /contacts/:id_or_email/topics: every topic with the contact's subscription. */
export async function contactTopicsGet(pool: Pool, teamId: string, idOrEmail: string) {
  const key = keyOf(idOrEmail);
  const c = key && (await contactFind(pool, teamId, key));
  if (!c) throw notFound('Contact');
  return contactTopicsOf(pool, teamId, c.id);
}

/** PATCH /contacts/:id_or_email/topics: records the choices; a change is a contact.updated. */
export async function contactTopicsUpdate(pool: Pool, teamId: string, idOrEmail: string, body: unknown) {
  const key = keyOf(idOrEmail);
  if (!key) throw notFound('Contact');
  return withTx(pool, async (tx) => {
    const c = await contactFind(tx, teamId, key, true);
    if (!c) throw notFound('Contact');
    const choices = await topicChoices(tx, teamId, body);
    await contactTopicsSet(tx, c.id, choices);
    if (choices.length) await recordEvent(tx, 'contact.updated', c);
    return { object: 'contact_topics' as const, id: c.id };
  });
}

/** A contact by id or address, or 404. */
export async function contactOf(db: Queryable, teamId: string, idOrEmail: string): Promise<ContactRow> {
  const key = keyOf(idOrEmail);
  const c = key && (await contactFind(db, teamId, key));
  if (!c) throw notFound('Contact');
  return c;
}

export const contactSegmentsGet = async (pool: Pool, teamId: string, idOrEmail: string) =>
  contactSegmentsList(pool, teamId, (await contactOf(pool, teamId, idOrEmail)).id);

/** Adds a contact to a segment; a contact.updated records it. */
export async function contactSegmentJoin(pool: Pool, teamId: string, idOrEmail: string, segmentId: string) {
  return withTx(pool, async (tx) => {
    const c = await contactOf(tx, teamId, idOrEmail);
    const out = await contactSegmentAdd(tx, teamId, c.id, segmentId);
    await recordEvent(tx, 'contact.updated', c);
    return { ...out, object: 'contact_segment' as const, contact_id: c.id, segment_id: out.id };
  });
}

export async function contactSegmentLeave(pool: Pool, teamId: string, idOrEmail: string, segmentId: string) {
  return withTx(pool, async (tx) => {
    const c = await contactOf(tx, teamId, idOrEmail);
    const out = await contactSegmentRemove(tx, teamId, c.id, segmentId);
    await recordEvent(tx, 'contact.updated', c);
    return { object: 'contact_segment' as const, contact_id: c.id, segment_id: out.id, ...out };
  });
}

/** The contacts of one segment, its members or those matching its filter (404 when the team has no such segment). */
export async function segmentContacts(
  pool: Pool,
  teamId: string,
  segmentId: string,
  page: PageQuery,
  what: 'Segment' | 'Audience' = 'Segment',
) {
  const s = await segmentOf(pool, teamId, segmentId, what);
  const p = await segmentContactsPage(pool, teamId, s, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data };
}

/** A contact reached through a legacy /audiences/:id/contacts/:id_or_email path: it must be a member. */
export async function audienceMember(pool: Pool, teamId: string, audienceId: string, idOrEmail: string): Promise<void> {
  const s = await segmentOf(pool, teamId, audienceId, 'Audience');
  const c = await contactOf(pool, teamId, idOrEmail);
  if (!(await segmentHasContact(pool, teamId, s, c.id))) throw notFound('Contact');
}

export async function contactsList(pool: Pool, teamId: string, page: PageQuery) {
  const p = await contactList(pool, teamId, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data };
}

/**
 * Changes the given fields (a property set to null loses its value). A change, including an
 * unsubscribe, records contact.updated; a request that changes nothing records no event.
 */
export async function contactUpdateFields(
  pool: Pool,
  teamId: string,
  idOrEmail: string,
  body: Record<string, unknown>,
) {
  const input = contactInput(body, false);
  refuseMembershipFields(body);
  const key = keyOf(idOrEmail);
  if (!key) throw notFound('Contact');
  try {
    return await withTx(pool, async (tx) => {
      const c = await contactFind(tx, teamId, key, true);
      if (!c) throw notFound('Contact');
      await propertiesCheck(tx, teamId, input.properties ?? {});
      const properties = { ...c.properties };
      for (const [k, v] of Object.entries(input.properties ?? {})) {
        if (v === null) delete properties[k];
        else properties[k] = v;
      }
      const next: ContactFields = {
        email: input.email ?? c.email,
        first_name: input.first_name === undefined ? c.first_name : input.first_name,
        last_name: input.last_name === undefined ? c.last_name : input.last_name,
        unsubscribed: input.unsubscribed ?? c.unsubscribed,
        properties,
      };
      const before: ContactFields = {
        email: c.email,
        first_name: c.first_name,
        last_name: c.last_name,
        unsubscribed: c.unsubscribed,
        properties: c.properties,
      };
      if (!sameFields(before, next))
        await recordEvent(tx, 'contact.updated', await contactUpdate(tx, teamId, c.id, next));
      return { object: 'contact' as const, id: c.id };
    });
  } catch (err) {
    if (isEmailTaken(err)) throw invalidField('email', 'another contact of this team already has this address.');
    throw err;
  }
}

function sameFields(a: ContactFields, b: ContactFields): boolean {
  const props = (p: ContactFields['properties']) =>
    JSON.stringify(Object.entries(p).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  return (
    a.email === b.email &&
    a.first_name === b.first_name &&
    a.last_name === b.last_name &&
    a.unsubscribed === b.unsubscribed &&
    props(a.properties) === props(b.properties)
  );
}

/** Resend answers 200 `deleted: true` with the path's value even for a contact that never existed. */
export async function contactRemove(pool: Pool, teamId: string, idOrEmail: string) {
  const key = keyOf(idOrEmail);
  if (key) {
    await withTx(pool, async (tx) => {
      const c = await contactDelete(tx, teamId, key);
      if (c) await recordEvent(tx, 'contact.deleted', c);
    });
  }
  return { object: 'contact' as const, contact: idOrEmail, deleted: true };
}

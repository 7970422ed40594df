// Inboxes (/inboxes): a mailbox on an address of one of the team's verified receiving domains,
// selected by id or by its address (the SDK's `InboxSelector`). Every change records its inbox.*
// event in the same transaction (the webhook outbox, email_events). SQL in store/inboxes.ts.
import { AppError, invalidField, missingField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { parseAddress, UNSAFE_HEADER_CHARS, MAX_DISPLAY_NAME } from '../mime/addresses.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { domainFindByName } from '../store/domains.js';
import {
  inboxCount,
  inboxDelete,
  inboxExists,
  inboxFind,
  inboxInsert,
  inboxList,
  inboxUpdate,
  type InboxRow,
} from '../store/inboxes.js';
import { resourceEventInsert } from '../store/resource-events.js';

const RECEIVING_OK = new Set(['verified', 'temporary_failure']); // as inbound/routing.ts
export const MAX_NAME = 256;
export const MAX_INBOXES = 1000; // a team's; a count, so that one key cannot fill the table

export const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

/** GET /inboxes/:inbox, and the `inbox` of inbox.* events. */
export const inboxView = (i: InboxRow) => ({
  object: 'inbox' as const,
  id: i.id,
  name: i.name,
  email_address: i.email_address,
  domain_id: i.domain_id,
  receiving_address: null,
  from_name: i.from_name,
  unread: i.unread,
  drafts: i.drafts,
  last_received: iso(i.last_received),
  created_at: iso(i.created_at)!,
  updated_at: iso(i.updated_at)!,
});

const listItem = (i: InboxRow) => ({
  id: i.id,
  name: i.name,
  email_address: i.email_address,
  from_name: i.from_name,
  unread: i.unread,
  last_received: iso(i.last_received),
  created_at: iso(i.created_at)!,
  updated_at: iso(i.updated_at)!,
});

/** The inbox a path segment names (its id or its address), the team's only; 404 otherwise. */
export async function inboxOf(db: Queryable, teamId: string, idOrAddress: string): Promise<InboxRow> {
  let row: InboxRow | undefined;
  if (isUuid(idOrAddress)) row = await inboxFind(db, teamId, { id: idOrAddress.toLowerCase() });
  else if (idOrAddress.includes('@') && idOrAddress.length <= 320)
    row = await inboxFind(db, teamId, { address: idOrAddress.trim().toLowerCase() });
  if (!row) throw notFound('Inbox');
  return row;
}

function optionalText(body: Record<string, unknown>, field: string, max: number): string | null | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (v === null || v === '') return null;
  if (typeof v !== 'string') throw invalidField(field, 'must be a string.');
  if (v.length > max) throw invalidField(field, `must be at most ${max} characters.`);
  if (UNSAFE_HEADER_CHARS.test(v)) throw invalidField(field, 'must not contain line breaks or control characters.');
  return v.trim() || null;
}

export async function inboxEvent(db: Queryable, teamId: string, id: string, type: 'inbox.created' | 'inbox.updated') {
  const row = await inboxFind(db, teamId, { id });
  if (row) await resourceEventInsert(db, teamId, id, type, { source: 'api', inbox_id: id, inbox: inboxView(row) });
}

export async function inboxCreate(pool: Pool, teamId: string, body: Record<string, unknown>) {
  const raw = body.email_address;
  if (raw === undefined || raw === null || raw === '') throw missingField('email_address');
  if (typeof raw !== 'string') throw invalidField('email_address', 'must be a string.');
  const addr = parseAddress(raw, 'email_address');
  if (addr.name) throw invalidField('email_address', 'must be an address alone, without a name.');
  const address = addr.address.toLowerCase();
  if (body.forwarding !== undefined && body.forwarding !== null && typeof body.forwarding !== 'boolean')
    throw invalidField('forwarding', 'must be a boolean.');
  const name = optionalText(body, 'name', MAX_NAME) ?? null;
  const fromName = optionalText(body, 'from_name', MAX_DISPLAY_NAME) ?? null;
  return withTx(pool, async (tx) => {
    if ((await inboxCount(tx, teamId)) >= MAX_INBOXES)
      throw new AppError('validation_error', `A team can have at most ${MAX_INBOXES} inboxes.`);
    const domain = await domainFindByName(tx, teamId, addr.domain);
    if (!domain) throw invalidField('email_address', `the domain ${addr.domain} is not one of the team's domains.`);
    if (!domain.receiving || !RECEIVING_OK.has(domain.record_status?.receiving_mx?.status ?? ''))
      throw invalidField('email_address', `the domain ${addr.domain} is not a verified receiving domain.`);
    const id = await inboxInsert(tx, {
      team_id: teamId,
      domain_id: domain.id,
      email_address: address,
      name,
      from_name: fromName,
      forwarding: body.forwarding === true,
    });
    if (!id) throw new AppError('validation_error', `An inbox for ${address} already exists.`);
    await inboxEvent(tx, teamId, id, 'inbox.created');
    return { object: 'inbox' as const, id };
  });
}

export async function inboxesList(
  db: Queryable,
  teamId: string,
  page: { limit?: number; after?: string; before?: string },
) {
  const cursor = page.after ?? page.before;
  if (cursor && !(await inboxExists(db, teamId, cursor)))
    throw new AppError(
      'validation_error',
      `The \`${page.after ? 'after' : 'before'}\` cursor does not match any item.`,
    );
  const p = await inboxList(db, teamId, page.limit ?? 20, page.after, page.before);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(listItem) };
}

export const inboxGet = async (db: Queryable, teamId: string, idOrAddress: string) =>
  inboxView(await inboxOf(db, teamId, idOrAddress));

export async function inboxChange(pool: Pool, teamId: string, idOrAddress: string, body: Record<string, unknown>) {
  const name = optionalText(body, 'name', MAX_NAME);
  const fromName = optionalText(body, 'from_name', MAX_DISPLAY_NAME);
  if (name === undefined && fromName === undefined)
    throw new AppError('validation_error', 'Give at least one of `name` and `from_name`.');
  return withTx(pool, async (tx) => {
    const inbox = await inboxOf(tx, teamId, idOrAddress);
    await inboxUpdate(tx, teamId, inbox.id, { name, from_name: fromName });
    await inboxEvent(tx, teamId, inbox.id, 'inbox.updated');
    return { object: 'inbox' as const, id: inbox.id };
  });
}

export async function inboxRemove(pool: Pool, teamId: string, idOrAddress: string) {
  return withTx(pool, async (tx) => {
    const inbox = await inboxOf(tx, teamId, idOrAddress);
    await inboxDelete(tx, teamId, inbox.id);
    await resourceEventInsert(tx, teamId, inbox.id, 'inbox.deleted', { source: 'api', inbox_id: inbox.id });
    return { object: 'inbox' as const, id: inbox.id, deleted: true };
  });
}

// Topics (/topics) and a contact's subscriptions to them (/contacts/:id/topics, `topics` on
// POST /contacts). Changes record topic.created|updated|deleted, and a contact's changed
// subscriptions contact.updated, in the same transaction. Whether a contact receives a topic's
// mail: its own choice, else the topic's default (opt_in: yes until it opts out; opt_out: no
// until it opts in); a globally unsubscribed contact receives none (store/emails.ts, delivery).
import { invalidField, missingField, notFound } from '../errors.js';
import { shown } from '../mime/addresses.js';
import { isUuid } from '../lib/ids.js';
import { isoOf as iso } from '../lib/time.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import { resourceEventInsert } from '../store/resource-events.js';
import {
  contactTopicsList,
  contactTopicsSet,
  topicDelete,
  topicFind,
  topicInsert,
  topicList,
  topicsFindMany,
  topicUpdate,
  type Subscription,
  type TopicRow,
} from '../store/topics.js';

const view = (t: TopicRow) => ({
  object: 'topic' as const,
  id: t.id,
  name: t.name,
  description: t.description,
  default_subscription: t.default_subscription,
  visibility: t.visibility,
  created_at: t.created_at,
});
const eventData = (t: TopicRow, deleted: boolean) => ({
  id: t.id,
  name: t.name,
  description: t.description,
  default_subscription: t.default_subscription,
  deleted,
  created_at: iso(t.created_at),
  updated_at: iso(t.updated_at),
});

function text(body: Record<string, unknown>, field: string, max: number, required: boolean): string | undefined {
  const v = body[field];
  if (v === undefined || v === null) {
    if (required) throw missingField(field);
    return undefined;
  }
  if (typeof v !== 'string' || !v.trim()) throw invalidField(field, 'must be a non-empty string.');
  if (v.length > max) throw invalidField(field, `must be at most ${max} characters.`);
  if (/[\u0000-\u001f\u007f]/.test(v)) throw invalidField(field, 'must not contain line breaks or control characters.');
  return v.trim();
}

function visibilityOf(v: unknown): 'public' | 'private' | undefined {
  if (v === undefined || v === null) return undefined;
  if (v !== 'public' && v !== 'private') throw invalidField('visibility', 'must be "public" or "private".');
  return v;
}

export async function topicCreate(pool: Pool, teamId: string, body: Record<string, unknown>) {
  const name = text(body, 'name', 50, true)!;
  const def = body.default_subscription;
  if (def === undefined || def === null) throw missingField('default_subscription');
  if (def !== 'opt_in' && def !== 'opt_out')
    throw invalidField('default_subscription', 'must be "opt_in" or "opt_out".');
  const row = await withTx(pool, async (tx) => {
    const t = await topicInsert(tx, teamId, {
      name,
      description: text(body, 'description', 200, false) ?? null,
      default_subscription: def,
      visibility: visibilityOf(body.visibility) ?? 'private',
    });
    await resourceEventInsert(tx, teamId, t.id, 'topic.created', eventData(t, false));
    return t;
  });
  return { object: 'topic' as const, id: row.id };
}

async function find(db: Queryable, teamId: string, id: string): Promise<TopicRow> {
  const t = isUuid(id) ? await topicFind(db, teamId, id) : undefined;
  if (!t) throw notFound('Topic');
  return t;
}

export const topicGet = async (db: Queryable, teamId: string, id: string) => view(await find(db, teamId, id));

export async function topicsList(db: Queryable, teamId: string, page: PageQuery) {
  const p = await topicList(db, teamId, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(view) };
}

export async function topicChange(pool: Pool, teamId: string, id: string, body: Record<string, unknown>) {
  if (body.default_subscription !== undefined)
    throw invalidField('default_subscription', 'cannot be changed after the topic is created.');
  const patch = {
    name: text(body, 'name', 50, false),
    description: body.description === null ? null : text(body, 'description', 200, false),
    visibility: visibilityOf(body.visibility),
  };
  await withTx(pool, async (tx) => {
    const t = isUuid(id) ? await topicUpdate(tx, teamId, id, patch) : undefined;
    if (!t) throw notFound('Topic');
    await resourceEventInsert(tx, teamId, t.id, 'topic.updated', eventData(t, false));
  });
  return { object: 'topic' as const, id };
}

export async function topicRemove(pool: Pool, teamId: string, id: string) {
  await withTx(pool, async (tx) => {
    const t = isUuid(id) ? await topicDelete(tx, teamId, id) : undefined;
    if (!t) throw notFound('Topic');
    await resourceEventInsert(tx, teamId, t.id, 'topic.deleted', eventData(t, true));
  });
  return { object: 'topic' as const, id, deleted: true };
}

/** `[{id, subscription}]` (the SDKs' bare array, or `{topics: [...]}`), each topic the team's. */
export async function topicChoices(
  db: Queryable,
  teamId: string,
  v: unknown,
  field = 'topics',
): Promise<{ id: string; subscription: Subscription }[]> {
  const list =
    v !== null && typeof v === 'object' && !Array.isArray(v) && 'topics' in v ? (v as { topics: unknown }).topics : v;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw invalidField(field, 'must be an array of {id, subscription}.');
  const choices = list.map((x, i) => {
    const id = (x as { id?: unknown } | null)?.id;
    const subscription = (x as { subscription?: unknown } | null)?.subscription;
    if (typeof id !== 'string' || !isUuid(id)) throw invalidField(`${field}[${i}].id`, 'must be a topic id.');
    if (subscription !== 'opt_in' && subscription !== 'opt_out')
      throw invalidField(`${field}[${i}].subscription`, 'must be "opt_in" or "opt_out".');
    return { id: id.toLowerCase(), subscription: subscription as Subscription };
  });
  const known = new Set(
    (
      await topicsFindMany(
        db,
        teamId,
        choices.map((c) => c.id),
      )
    ).map((t) => t.id),
  );
  const unknown = choices.find((c) => !known.has(c.id));
  if (unknown) throw invalidField(field, `no topic has the id ${shown(unknown.id)}.`);
  return choices;
}

/**
 * Resend's items `{id, name, description, subscription}`, plus (beyond Resend, for the dashboard)
 * the topic's `default_subscription` and whether `subscription` is the contact's own choice.
 */
export async function contactTopicsOf(db: Queryable, teamId: string, contactId: string) {
  const rows = await contactTopicsList(db, teamId, contactId);
  return {
    object: 'list' as const,
    has_more: false,
    data: rows.map((t) => ({
      id: t.id,
      name: t.name,
      description: t.description,
      subscription: t.subscription,
      default_subscription: t.default_subscription,
      chosen: t.chosen,
    })),
  };
}

export { contactTopicsSet };
